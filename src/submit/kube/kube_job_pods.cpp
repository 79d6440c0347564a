#include "submit/kube/kube_jobs.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/errors.h"
#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

using lane::kube::ListOptions;
namespace res = lane::kube::resources;

namespace {

// Writes each chunk to `out` as it arrives (logs and exec output are read live).
std::function<void(std::string_view)> unbuffered(std::ostream& out) {
  return [&out](std::string_view chunk) {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    out.flush();
  };
}

}  // namespace

std::string KubeJobs::chief_pod(const std::string& ns, const Json& w) {
  std::string name = text(w["metadata"], "name");
  const std::string kind = text(w, "kind");
  const bool mpi = kind == kMpiJobKind;
  ListOptions o;
  o.label_selector = mpi                      ? fmt::format("{}={},{}=launcher", kMpiJobNameLabel, name, kMpiJobRoleLabel)
                     : kind == kPyTorchJobKind ? fmt::format("{}={},{}=master", kMpiJobNameLabel, name, kReplicaTypeLabel)
                                               : "job-name=" + name;
  auto pods = ctx_.client->list(res::kPod, ns, o).items;
  if (pods.empty()) {
    throw lane::Error(fmt::format("job '{}' has no {} yet; see 'lanectl describe job {}'", name,
                                  mpi ? "launcher pod" : kind == kPyTorchJobKind ? "master pod" : "pod", name));
  }
  // The newest pod: after restarts the old ones only hold stale logs.
  std::sort(pods.begin(), pods.end(), [](const Json& a, const Json& b) {
    return text(a["metadata"], "creationTimestamp") > text(b["metadata"], "creationTimestamp");
  });
  return text(pods.front()["metadata"], "name");
}

void KubeJobs::stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                           std::ostream& out) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) throw lane::Error(fmt::format("job '{}' does not exist in project {}", name, project));
  std::string pod = opts.pod.empty() ? chief_pod(ns, *w) : opts.pod;
  lane::kube::LogOptions lo;
  lo.follow = opts.follow;
  if (opts.tail >= 0) lo.tail_lines = opts.tail;
  if (opts.since_seconds > 0) lo.since_seconds = opts.since_seconds;
  lo.timestamps = opts.timestamps;
  ctx_.client->stream_logs(ns, pod, lo, unbuffered(out));
  // A followed stream also ends when the pod goes away: say so when the job was deleted.
  if (opts.follow && !find_workload(ns, name)) throw job_deleted(name, project);
}

int KubeJobs::exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
                   bool tty, const std::string& pod, std::ostream& out, std::ostream& err) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) throw lane::Error(fmt::format("job '{}' does not exist in project {}", name, project));
  const std::string target = pod.empty() ? chief_pod(ns, *w) : pod;
  auto is_running = [](const Json& p) { return text(p["status"], "phase") == "Running"; };
  auto now = ctx_.client->try_get(res::kPod, ns, target);
  if (!now) throw lane::Error(fmt::format("pod {} of job '{}' does not exist in {}", target, name, ns));
  // As `runai bash`: a pod that is still starting gets up to 30 s to run.
  if (!is_running(*now) && !ctx_.client->wait_for(res::kPod, ns, target, is_running, std::chrono::seconds(30))) {
    now = ctx_.client->try_get(res::kPod, ns, target);
    throw lane::Error(fmt::format("pod {} of job '{}' is {} after 30 s; exec needs a Running pod (see "
                                  "'lanectl describe job {}')",
                                  target, name, now ? text((*now)["status"], "phase") : "gone", name));
  }
  lane::kube::PodExecRequest request;
  request.ns = ns;
  request.pod = target;
  request.command = argv;
  request.tty = tty;
  request.stdin = tty || !::isatty(STDIN_FILENO);  // -i is implied by a pipe or a file on stdin
  lane::kube::PodExecIo io;
  io.in_fd = STDIN_FILENO;
  io.out = unbuffered(out);
  io.err = unbuffered(err);
  return ctx_.client->exec(request, io);
}

int KubeJobs::attach(const std::string& name, const std::string& project, const AttachOptions& opts,
                     std::ostream& out, std::ostream& err) {
  const std::string ns = ctx_.ns_of(project);
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
  auto w = find_workload(ns, name);
  if (!w) throw job_deleted(name, project);
  const std::string target = opts.pod.empty() ? chief_pod(ns, *w) : opts.pod;
  auto pod = ctx_.client->try_get(res::kPod, ns, target);
  if (!pod) throw lane::Error(fmt::format("pod {} of job '{}' does not exist in {}", target, name, ns));
  int session_code = 0;
  if (text(object_field(*pod, "status"), "phase") == "Running") {
    lane::kube::PodExecRequest request;
    request.ns = ns;
    request.pod = target;
    request.attach = true;
    request.stdin = opts.stdin;
    request.tty = opts.tty;
    lane::kube::PodExecIo io;
    io.in_fd = STDIN_FILENO;
    io.out = unbuffered(out);
    io.err = unbuffered(err);
    session_code = ctx_.client->exec(request, io);
  } else {  // the container has ended: nothing to attach to, its output is in the log
    LogOptions logs;
    logs.pod = target;
    stream_logs(name, project, logs, out);
  }
  // The session ends with the container; the workload's conditions follow within a minute (a
  // Job that restarts its pod stays Running: then say so rather than wait for ever).
  const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    auto info = describe_job(name, project);
    if (!info) throw job_deleted(name, project);
    if (info->status == JobStatus::kSucceeded) return 0;
    if (info->status == JobStatus::kFailed) return info->exit_code ? *info->exit_code : session_code ? session_code : 1;
    if (std::chrono::steady_clock::now() >= settle)
      throw lane::Error(fmt::format("the output of job '{}' ended but the job is still {}; see 'lanectl describe "
                                    "job {} -p {}'",
                                    name, to_string(info->status), name, project));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace lane::submit::kube
