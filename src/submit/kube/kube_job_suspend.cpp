// lanectl suspend / resume / attach on Kubernetes. Suspend is the workload's own switch: a
// batch/v1 Job's spec.suspend, an MPIJob's spec.runPolicy.suspend (mpi-operator v2beta1); the
// controllers then delete the pods and set the Suspended condition, which job_state reads as
// Suspended. Attach follows the chief pod's output (pods/log with follow) until it ends.
#include "submit/kube/kube_jobs.h"

#include <chrono>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/errors.h"
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

bool KubeJobs::suspend_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return false;
  auto info = describe_job(name, project);
  if (info && (info->status == JobStatus::kSucceeded || info->status == JobStatus::kFailed))
    throw UsageError(fmt::format("job '{}' is {}; only a Pending or Running job can be suspended", name,
                                 to_string(info->status)));
  bool mpi = text(*w, "kind") == "MPIJob";
  ctx_.client->merge_patch(mpi ? res::kMpiJob : res::kJob, ns, name, suspend_patch(mpi, true));
  return true;
}

bool KubeJobs::resume_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return false;
  bool mpi = text(*w, "kind") == "MPIJob";
  if (!suspended_in_spec(*w, mpi))
    throw UsageError(fmt::format("job '{}' is not suspended ({} is not true); `lanectl resume` only resumes a job "
                                 "stopped with `lanectl suspend`",
                                 name, mpi ? "spec.runPolicy.suspend" : "spec.suspend"));
  ctx_.client->merge_patch(mpi ? res::kMpiJob : res::kJob, ns, name, suspend_patch(mpi, false));
  return true;
}

int KubeJobs::attach(const std::string& name, const std::string& project, const AttachOptions& opts,
                     std::ostream& out, std::ostream& err) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(opts.wait_seconds);
  bool told = false;
  for (;;) {
    auto info = describe_job(name, project);
    if (!info) throw lane::Error(fmt::format("job '{}' does not exist in project {}", name, project));
    if (info->status != JobStatus::kPending && info->status != JobStatus::kSuspended) break;
    if (!told) {
      err << "Waiting for job " << name << " to start (" << to_string(info->status)
          << (info->status_reason.empty() ? "" : ": " + info->status_reason) << ")\n";
      told = true;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw lane::Error(fmt::format("job '{}' did not start within {} s; see 'lanectl describe job {} -p {}'", name,
                                    opts.wait_seconds, name, project));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  LogOptions logs;
  logs.follow = true;
  logs.pod = opts.pod;
  stream_logs(name, project, logs, out);
  // The stream ends with the container; the workload's conditions follow shortly.
  for (;;) {
    auto info = describe_job(name, project);
    if (!info) throw job_deleted(name, project);
    if (info->status == JobStatus::kSucceeded) return 0;
    if (info->status == JobStatus::kFailed) return info->exit_code ? *info->exit_code : 1;
    if (std::chrono::steady_clock::now() >= deadline + std::chrono::seconds(opts.wait_seconds))
      throw lane::Error(fmt::format("the output of job '{}' ended but the job is still {}; see 'lanectl describe "
                                    "job {} -p {}'",
                                    name, to_string(info->status), name, project));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace lane::submit::kube
