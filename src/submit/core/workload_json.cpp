#include "submit/core/workload_json.h"

#include <ctime>

namespace lane::submit {
using nlohmann::json;

json spec_to_json(const JobSpec& s) {
  json env = json::array();
  for (const auto& e : s.env) env.push_back({{"name", e.name}, {"value", e.value}});
  json pvcs = json::array();
  for (const auto& p : s.pvcs)
    pvcs.push_back({{"create", p.create}, {"claim", p.claim}, {"storageClass", p.storage_class},
                    {"size", p.size}, {"mountPath", p.mount_path}, {"readOnly", p.read_only}});
  json vols = json::array();
  for (const auto& v : s.volumes)
    vols.push_back({{"hostPath", v.host_path}, {"containerPath", v.container_path}, {"readOnly", v.read_only}});
  return {{"name", s.name}, {"project", s.project}, {"type", to_string(s.type)}, {"image", s.image},
          {"gpu", s.gpu}, {"processes", s.processes}, {"slotsPerWorker", s.slots_per_worker},
          {"env", env}, {"command", s.command}, {"args", s.args}, {"pvcs", pvcs},
          {"volumes", vols}, {"largeShm", s.large_shm}, {"shmSize", s.shm_size}, {"cpu", s.cpu},
          {"memory", s.memory}, {"ports", s.ports}, {"serviceType", s.service_type},
          {"nodeType", s.node_type}, {"workingDir", s.working_dir}, {"cliArgv", s.cli_argv},
          {"user", s.user}};
}

JobSpec spec_from_json(const json& j) {
  JobSpec s;
  s.name = j.value("name", "");
  s.project = j.value("project", "");
  s.type = job_type_from_string(j.value("type", "Train"));
  s.image = j.value("image", "");
  s.gpu = j.value("gpu", 0.0);
  s.processes = j.value("processes", 1);
  s.slots_per_worker = j.value("slotsPerWorker", 1);
  for (const auto& e : j.value("env", json::array())) s.env.push_back({e.value("name", ""), e.value("value", "")});
  s.command = j.value("command", std::vector<std::string>{});
  s.args = j.value("args", std::vector<std::string>{});
  for (const auto& p : j.value("pvcs", json::array()))
    s.pvcs.push_back({p.value("create", false), p.value("claim", ""), p.value("storageClass", ""),
                      p.value("size", ""), p.value("mountPath", ""), p.value("readOnly", false)});
  for (const auto& v : j.value("volumes", json::array()))
    s.volumes.push_back({v.value("hostPath", ""), v.value("containerPath", ""), v.value("readOnly", false)});
  s.large_shm = j.value("largeShm", false);
  s.shm_size = j.value("shmSize", "");
  s.cpu = j.value("cpu", "");
  s.memory = j.value("memory", "");
  s.ports = j.value("ports", std::vector<std::string>{});
  s.service_type = j.value("serviceType", "");
  s.node_type = j.value("nodeType", "");
  s.working_dir = j.value("workingDir", "");
  s.cli_argv = j.value("cliArgv", std::vector<std::string>{});
  s.user = j.value("user", "");
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
            {"type", to_string(job.spec.type)},
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
  if (job.spec.type == JobType::kMpi) j["processes"] = job.spec.processes;
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
  if (s == "Interactive") return JobType::kInteractive;
  if (s == "Mpi") return JobType::kMpi;
  return JobType::kTrain;
}

JobStatus job_status_from_string(const std::string& s) {
  for (auto st : {JobStatus::kPending, JobStatus::kRunning, JobStatus::kSucceeded, JobStatus::kFailed,
                  JobStatus::kDeleted, JobStatus::kPreempted, JobStatus::kSuspended})
    if (s == to_string(st)) return st;
  return JobStatus::kUnknown;
}

}  // namespace lane::submit
