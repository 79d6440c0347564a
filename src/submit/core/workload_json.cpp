#include "submit/core/workload_json.h"

#include <ctime>

#include "submit/core/spec_fields.h"

namespace lane::submit {
using nlohmann::json;

json spec_to_json(const JobSpec& s) {
  json j = json::object();
  for (const auto& f : spec_fields()) f.to_json(s, j);
  return j;
}

JobSpec spec_from_json(const json& j) {
  JobSpec s;
  for (const auto& f : spec_fields()) f.from_json(j, s);
  return s;
}

std::string format_rfc3339(int64_t unix_ms) {
  if (unix_ms <= 0) return "";
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json job_to_json(const JobInfo& job, bool detailed) {
  json j = {{"name", job.spec.name},
            {"project", job.spec.project},
            {"type", type_label(job.spec)},
            {"status", to_string(job.status)},
            {"statusReason", job.status_reason},
            {"image", job.spec.image},
            {"user", job.spec.user},
            {"gpusRequested", job.spec.total_gpus()},
            {"gpusAllocated", job.gpus_allocated},
            {"nodes", job.nodes},
            {"podsRunning", job.pods_running},
            {"podsPending", job.pods_pending},
            {"createdAt", format_rfc3339(job.created_unix_ms)},
            {"startedAt", format_rfc3339(job.started_unix_ms)},
            {"finishedAt", format_rfc3339(job.finished_unix_ms)},
            {"exitCode", job.exit_code ? json(*job.exit_code) : json(nullptr)}};
  if (is_distributed(job.spec.type)) j["processes"] = job.spec.processes;
  if (!detailed) return j;
  j["spec"] = spec_to_json(masked_for_display(job.spec));
  json pods = json::array();
  for (const auto& p : job.pods)
    pods.push_back({{"name", p.name}, {"status", p.status}, {"role", p.role}, {"node", p.node},
                    {"gpuIndices", p.gpu_indices}, {"gpuShare", p.gpu_share},
                    {"createdAt", format_rfc3339(p.created_unix_ms)},
                    {"startedAt", format_rfc3339(p.started_unix_ms)}, {"ip", p.ip}});
  j["pods"] = pods;
  json events = json::array();
  for (const auto& e : job.events)
    events.push_back({{"time", format_rfc3339(e.time_unix_ms)}, {"source", e.source}, {"type", e.type},
                      {"reason", e.reason}, {"message", e.message}});
  j["events"] = events;
  return j;
}

JobType job_type_from_string(const std::string& s) {
  if (s == "Interactive" || s == "Interactive-Preemptible") return JobType::kInteractive;
  if (s == "Mpi") return JobType::kMpi;
  if (s == "PyTorch") return JobType::kPyTorch;
  return JobType::kTrain;
}

JobStatus job_status_from_string(const std::string& s) {
  for (auto st : {JobStatus::kPending, JobStatus::kRunning, JobStatus::kSucceeded, JobStatus::kFailed,
                  JobStatus::kDeleted, JobStatus::kPreempted, JobStatus::kSuspended})
    if (s == to_string(st)) return st;
  return JobStatus::kUnknown;
}

}  // namespace lane::submit
