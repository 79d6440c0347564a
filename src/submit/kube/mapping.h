#pragma once
// JobSpec -> Kubernetes objects, as pure functions (no I/O). `lanectl submit --dry-run -o yaml`
// prints exactly what these return; submit creates them in order. See docs/kubernetes.md.
//   submit      -> PVCs (new --pvc claims), batch/v1 Job, Service (--port / --service-type),
//                  Ingress (--service-type ingress)
//   submit-mpi  -> PVCs, kubeflow.org/v2beta1 MPIJob (Launcher 1 + Worker --processes)
//   submit-dist pytorch -> PVCs, kubeflow.org/v1 PyTorchJob (Master 1 + Worker --workers)
//   project     -> Namespace runai-<p> (label runai/queue=<p>) + KAI Queue <p> (scheduling.run.ai/v2)
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/backend.h"
#include "submit/core/workload.h"
#include "submit/kube/settings.h"

namespace lane::submit::kube {

using Json = nlohmann::json;

std::string project_namespace(const KubeSettings& s, const std::string& project);

Json namespace_object(const KubeSettings& s, const std::string& project);
Json queue_object(const KubeSettings& s, const ProjectSpec& project);

// All objects of a submission in creation order (PVCs first, the workload, then a Service and
// an Ingress).
// The spec is checked first (submit/core/validate.h): UsageError naming the flag, nothing rendered.
std::vector<Json> render_job(const KubeSettings& s, const JobSpec& spec);

// The single-pod workload alone (batch/v1 Job), the MPIJob alone and the PyTorchJob alone, for a spec that passed
// validate() (render_job checks first).
Json batch_job_object(const KubeSettings& s, const JobSpec& spec);
Json mpijob_object(const KubeSettings& s, const JobSpec& spec);
Json pytorchjob_object(const KubeSettings& s, const JobSpec& spec);

// gpu-fraction value as runai prints it (%g): 0.5 -> "0.5".
std::string format_gpu(double gpu);

}  // namespace lane::submit::kube
