#include "submit/kube/kube_jobs.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <ostream>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/errors.h"
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
  bool mpi = text(w, "kind") == "MPIJob";
  ListOptions o;
  o.label_selector = mpi ? fmt::format("{}={},{}=launcher", kMpiJobNameLabel, name, kMpiJobRoleLabel)
                         : "job-name=" + name;
  auto pods = ctx_.client->list(res::kPod, ns, o).items;
  if (pods.empty()) {
    throw lane::Error(fmt::format("job '{}' has no {} yet; see 'lanectl describe job {}'", name,
                                  mpi ? "launcher pod" : "pod", name));
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

}  // namespace lane::submit::kube
