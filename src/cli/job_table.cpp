#include "cli/job_table.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/ranges.h>

#include "cli/duration_format.h"
#include "cli/table.h"
#include "common/error.h"
#include "submit/core/workload_json.h"

namespace lane::cli {

namespace {

// The node the job runs or ran on (as `top job` and the dashboard show it), "<multiple>" for several.
std::string node_cell(const submit::JobInfo& job) {
  if (job.nodes.empty()) return "";
  return job.nodes.size() == 1 ? job.nodes[0] : "<multiple>";
}

std::string gpu_cell(const submit::JobInfo& job) {
  return format_gpus(job.gpus_allocated) + " (" + format_gpus(job.spec.total_gpus()) + ")";
}

// -o wide: the chief pod's IP (launcher or main pod; "-" when unknown, e.g. locally).
std::string ip_cell(const submit::JobInfo& job) {
  for (const auto& p : job.pods)
    if ((p.role == "launcher" || p.role == "main") && !p.ip.empty()) return p.ip;
  return "-";
}

// -o wide: the pods the job is made of (1; MPI: the launcher and one per process).
// The pods the job is made of (1; MPI: the launcher and one per process; PyTorch: master + workers).
int pod_count(const submit::JobSpec& spec) { return submit::is_distributed(spec.type) ? spec.processes + 1 : 1; }

using Less = std::function<bool(const submit::JobInfo&, const submit::JobInfo&)>;

template <typename F>
Less by(F key) {
  return [key](const submit::JobInfo& a, const submit::JobInfo& b) { return key(a) < key(b); };
}

const std::map<std::string, Less>& sort_keys() {
  using J = submit::JobInfo;
  static const std::map<std::string, Less> keys = {
      {"name", by([](const J& j) { return j.spec.name; })},
      {"status", by([](const J& j) { return std::string(submit::to_string(j.status)); })},
      {"age", by([](const J& j) { return -j.created_unix_ms; })},  // youngest first, as AGE reads
      {"node", by([](const J& j) { return node_cell(j); })},
      {"type", by([](const J& j) { return submit::type_label(j.spec); })},
      {"project", by([](const J& j) { return j.spec.project; })},
      {"user", by([](const J& j) { return j.spec.user; })},
      {"image", by([](const J& j) { return j.spec.image; })},
      {".metadata.name", by([](const J& j) { return j.spec.name; })},
      {".metadata.namespace", by([](const J& j) { return j.spec.project; })},
      {".metadata.creationTimestamp", by([](const J& j) { return j.created_unix_ms; })},
      {".status.phase", by([](const J& j) { return std::string(submit::to_string(j.status)); })},
      {".status.startTime", by([](const J& j) { return j.started_unix_ms; })},
      {".spec.image", by([](const J& j) { return j.spec.image; })},
  };
  return keys;
}

}  // namespace

std::vector<std::string> job_table_header(bool wide) {
  std::vector<std::string> header = {"NAME", "STATUS", "AGE", "NODE", "TYPE", "PROJECT", "GPUs ALLOC (REQ)",
                                     "PODs RUN (PEND)"};
  if (wide)
    header.insert(header.end(), {"USER", "IMAGE", "SERVICE URL(S)", "REASON", "IP", "START TIME", "PODS",
                                 "PREEMPTIBLE"});
  return header;
}

std::vector<std::string> job_table_row(const submit::JobInfo& j, bool wide, int64_t now_ms) {
  std::vector<std::string> row = {j.spec.name, submit::to_string(j.status), short_duration(now_ms - j.created_unix_ms),
                                  node_cell(j), submit::type_label(j.spec), j.spec.project, gpu_cell(j),
                                  std::to_string(j.pods_running) + " (" + std::to_string(j.pods_pending) + ")"};
  if (wide) {
    std::string start = submit::format_rfc3339(j.started_unix_ms);
    row.insert(row.end(), {j.spec.user, j.spec.image, fmt::format("{}", fmt::join(j.service_urls, ",")),
                           j.status_reason, ip_cell(j), start.empty() ? "-" : start,
                           std::to_string(pod_count(j.spec)), submit::is_preemptible(j.spec) ? "yes" : "no"});
  }
  return row;
}

void sort_jobs(std::vector<submit::JobInfo>& jobs, const std::string& key) {
  std::string lower = key;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  auto it = sort_keys().find(key.rfind('.', 0) == 0 ? key : lower);
  if (it == sort_keys().end()) {
    std::vector<std::string> names;
    for (const auto& [name, less] : sort_keys()) names.push_back(name);
    throw UsageError(fmt::format("--sort-by '{}': use a column ({}) or a JSONPath ({})", key,
                                 fmt::join(names.begin() + 6, names.end(), ", "),
                                 fmt::join(names.begin(), names.begin() + 6, ", ")));
  }
  std::stable_sort(jobs.begin(), jobs.end(), it->second);
}

}  // namespace lane::cli
