#include "submit/core/workload_json.h"

#include <ctime>

namespace lane::submit {
using nlohmann::json;

namespace {

const char* preemptibility_name(Preemptibility p) {
  switch (p) {
    case Preemptibility::kPreemptible: return "preemptible";
    case Preemptibility::kNonPreemptible: return "non-preemptible";
    case Preemptibility::kDefault: break;
  }
  return "";
}

// The Run:AI flags of issue 17: written only when set, so that specs without them keep their
// JSON byte for byte, and read with defaults, so that specs stored before them still load.
void extras_to_json(const JobSpec& s, json& j) {
  auto put = [&j](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  auto flag = [&j](const char* key, bool v) {
    if (v) j[key] = true;
  };
  put("preemptibility", preemptibility_name(s.preemptibility));
  put("imagePullPolicy", s.image_pull_policy);
  flag("tty", s.tty);
  flag("stdin", s.stdin_open);
  flag("attach", s.attach);
  if (s.backoff_limit) j["backoffLimit"] = *s.backoff_limit;
  if (s.completions) j["completions"] = *s.completions;
  if (s.parallelism) j["parallelism"] = *s.parallelism;
  if (s.ttl_after_finish_seconds) j["ttlSecondsAfterFinished"] = *s.ttl_after_finish_seconds;
  put("cpuLimit", s.cpu_limit);
  put("memoryLimit", s.memory_limit);
  put("gpuMemory", s.gpu_memory);
  put("nodePool", s.node_pool);
  if (!s.tolerations.empty()) {
    json t = json::array();
    for (const auto& x : s.tolerations) t.push_back({{"key", x.key}, {"value", x.value}, {"effect", x.effect}});
    j["tolerations"] = t;
  }
  if (s.run_as_uid) j["runAsUser"] = *s.run_as_uid;
  if (s.run_as_gid) j["runAsGroup"] = *s.run_as_gid;
  flag("hostIPC", s.host_ipc);
  flag("hostNetwork", s.host_network);
  put("cleanPodPolicy", s.clean_pod_policy);
  put("migProfile", s.mig_profile);
  flag("elastic", s.elastic);
  flag("preventPrivilegeEscalation", s.prevent_privilege_escalation);
  flag("createHomeDir", s.create_home_dir);
}

template <typename T>
std::optional<T> optional_value(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

void extras_from_json(const json& j, JobSpec& s) {
  const std::string p = j.value("preemptibility", "");
  s.preemptibility = p == "preemptible"       ? Preemptibility::kPreemptible
                     : p == "non-preemptible" ? Preemptibility::kNonPreemptible
                                              : Preemptibility::kDefault;
  s.image_pull_policy = j.value("imagePullPolicy", "");
  s.tty = j.value("tty", false);
  s.stdin_open = j.value("stdin", false);
  s.attach = j.value("attach", false);
  s.backoff_limit = optional_value<int>(j, "backoffLimit");
  s.completions = optional_value<int>(j, "completions");
  s.parallelism = optional_value<int>(j, "parallelism");
  s.ttl_after_finish_seconds = optional_value<int64_t>(j, "ttlSecondsAfterFinished");
  s.cpu_limit = j.value("cpuLimit", "");
  s.memory_limit = j.value("memoryLimit", "");
  s.gpu_memory = j.value("gpuMemory", "");
  s.node_pool = j.value("nodePool", "");
  for (const auto& t : j.value("tolerations", json::array()))
    s.tolerations.push_back({t.value("key", ""), t.value("value", ""), t.value("effect", "")});
  s.run_as_uid = optional_value<int64_t>(j, "runAsUser");
  s.run_as_gid = optional_value<int64_t>(j, "runAsGroup");
  s.host_ipc = j.value("hostIPC", false);
  s.host_network = j.value("hostNetwork", false);
  s.clean_pod_policy = j.value("cleanPodPolicy", "");
  s.mig_profile = j.value("migProfile", "");
  s.elastic = j.value("elastic", false);
  s.prevent_privilege_escalation = j.value("preventPrivilegeEscalation", false);
  s.create_home_dir = j.value("createHomeDir", false);
}

}  // namespace

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
  json j = {{"name", s.name}, {"project", s.project}, {"type", to_string(s.type)}, {"image", s.image},
          {"gpu", s.gpu}, {"processes", s.processes}, {"slotsPerWorker", s.slots_per_worker},
          {"env", env}, {"command", s.command}, {"args", s.args}, {"pvcs", pvcs},
          {"volumes", vols}, {"largeShm", s.large_shm}, {"shmSize", s.shm_size}, {"cpu", s.cpu},
          {"memory", s.memory}, {"ports", s.ports}, {"serviceType", s.service_type},
          {"nodeType", s.node_type}, {"workingDir", s.working_dir}, {"cliArgv", s.cli_argv},
          {"user", s.user}};
  extras_to_json(s, j);
  return j;
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
  extras_from_json(j, s);
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
  if (s == "Interactive" || s == "Interactive-Preemptible") return JobType::kInteractive;
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
