#pragma once
// Kubernetes objects -> JobInfo: the Run:AI status rules applied to a workload (batch Job or
// MPIJob) and its pods. Pure functions, shared by list and describe.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/workload.h"
#include "submit/kube/object_summary.h"
#include "submit/kube/settings.h"

namespace lane::submit::kube {

// o[key] without a copy, or an empty object when absent: what o.value(key, json::object())
// returns, minus the copy of (often large) labels/annotations/status (throws the same
// type_error as value() when `o` is not an object).
const nlohmann::json& object_field(const nlohmann::json& o, const char* key);

// The GPUs one pod holds: nvidia.com/gpu limits of its containers, or its gpu-fraction annotation.
double pod_gpus(const PodSummary& pod);
double pod_gpus(const nlohmann::json& pod);

// `workload` is a batch/v1 Job or a kubeflow.org MPIJob; `pods` are the ones it owns.
// Status: conditions decide Succeeded/Failed; otherwise Running when the pods run, demoted to
// Pending when any pod is still Pending (runai's GetJobRealStatus rule, mpi-operator#1617).
JobInfo job_info_from_summaries(const KubeSettings& s, const WorkloadSummary& workload,
                                const std::vector<const PodSummary*>& pods);
// Workloads joined with their pods (batch Job pods carry job-name=<job>, Kubeflow pods
// training.kubeflow.org/job-name=<job>, in the workload's namespace); pods of no workload are
// ignored, and MPI launcher Jobs (owned by their MPIJob) are not jobs of their own. Unsorted.
std::vector<JobInfo> jobs_from_summaries(const KubeSettings& s, const std::vector<const WorkloadSummary*>& workloads,
                                         const std::vector<const PodSummary*>& pods);
// The same for parsed objects (describe): summarised first, so both follow one set of rules.
JobInfo job_info_from_objects(const KubeSettings& s, const nlohmann::json& workload,
                              const std::vector<const nlohmann::json*>& pods);

int64_t parse_time_ms(const std::string& rfc3339);  // 0 when empty or malformed

// Events (core/v1) -> JobEvent, oldest first.
std::vector<JobEvent> events_from_objects(const std::vector<nlohmann::json>& events);

}  // namespace lane::submit::kube
