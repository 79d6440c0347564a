// lanectl suspend / resume on Kubernetes. Suspend is the workload's own switch: a
// batch/v1 Job's spec.suspend, an MPIJob's or PyTorchJob's spec.runPolicy.suspend; the
// controllers then delete the pods and set the Suspended condition, which job_state reads as
// Suspended.
#include "submit/kube/kube_jobs.h"

#include <fmt/format.h>

#include "common/error.h"
#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

namespace res = lane::kube::resources;

namespace {

Json suspend_patch(bool mpi, bool suspend) {
  return mpi ? Json{{"spec", {{"runPolicy", {{"suspend", suspend}}}}}} : Json{{"spec", {{"suspend", suspend}}}};
}

bool suspended_in_spec(const Json& w, bool mpi) {
  const Json& spec = object_field(w, "spec");
  const Json& where = mpi ? object_field(spec, "runPolicy") : spec;
  auto it = where.find("suspend");
  return it != where.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

SwitchResult KubeJobs::suspend_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return SwitchResult::kNoJob;
  const std::string kind = text(*w, "kind");
  if (suspended_in_spec(*w, kind != kJobKind)) return SwitchResult::kUnchanged;
  auto info = describe_job(name, project);
  if (info && (info->status == JobStatus::kSucceeded || info->status == JobStatus::kFailed))
    throw UsageError(fmt::format("job '{}' is {}; only a Pending or Running job can be suspended", name,
                                 to_string(info->status)));
  ctx_.client->merge_patch(workload_resource(kind), ns, name, suspend_patch(kind != kJobKind, true));
  return SwitchResult::kDone;
}

SwitchResult KubeJobs::resume_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return SwitchResult::kNoJob;
  const std::string kind = text(*w, "kind");
  const bool mpi = kind != kJobKind;  // MPIJob and PyTorchJob: spec.runPolicy.suspend
  if (!suspended_in_spec(*w, mpi))
    throw UsageError(fmt::format("job '{}' is not suspended ({} is not true); `lanectl resume` only resumes a job "
                                 "stopped with `lanectl suspend`",
                                 name, mpi ? "spec.runPolicy.suspend" : "spec.suspend"));
  ctx_.client->merge_patch(workload_resource(kind), ns, name, suspend_patch(mpi, false));
  return SwitchResult::kDone;
}

}  // namespace lane::submit::kube
