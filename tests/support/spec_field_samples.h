#pragma once
// For each row of submit::spec_fields() (by its JSON key): a valid spec that leaves the field at
// its default, and the change that sets it. The field-table tests (tests/submit, tests/cli,
// tests/submit_kube) compare the two; a row without a sample fails them.
#include <functional>
#include <map>
#include <string>

#include "submit/core/workload.h"

namespace lane::test {

struct FieldSample {
  std::function<void(submit::JobSpec&)> context;  // what the field needs around it (MPI, --large-shm, ...)
  std::function<void(submit::JobSpec&)> set;
};

inline submit::JobSpec sample_base() {
  submit::JobSpec s;
  s.name = "train-1";
  s.project = "lane-detection";
  s.image = "scnn-train";
  return s;
}

inline const std::map<std::string, FieldSample>& field_samples() {
  using submit::JobSpec;
  auto none = [](JobSpec&) {};
  auto mpi = [](JobSpec& s) { s.type = submit::JobType::kMpi; };
  static const std::map<std::string, FieldSample> samples = {
      {"name", {none, [](JobSpec& s) { s.name = "train-2"; }}},
      {"project", {none, [](JobSpec& s) { s.project = "other"; }}},
      {"type", {none, [](JobSpec& s) { s.type = submit::JobType::kInteractive; }}},
      {"image", {none, [](JobSpec& s) { s.image = "scnn-train:2"; }}},
      {"gpu", {none, [](JobSpec& s) { s.gpu = 0.5; }}},
      {"processes", {mpi, [](JobSpec& s) { s.processes = 3; }}},
      {"slotsPerWorker", {mpi, [](JobSpec& s) { s.slots_per_worker = 2; }}},
      {"env", {none, [](JobSpec& s) { s.env = {{"BATCH_SIZE", "33"}}; }}},
      {"command", {none, [](JobSpec& s) { s.command = {"python", "train.py"}; }}},
      {"args", {none, [](JobSpec& s) { s.args = {"--epochs", "2"}; }}},
      {"pvcs", {none, [](JobSpec& s) { s.pvcs = {{true, "", "fast", "10Gi", "/data", false}}; }}},
      {"volumes", {none, [](JobSpec& s) { s.volumes = {{"/host", "/in", true}}; }}},
      {"largeShm", {none, [](JobSpec& s) { s.large_shm = true; }}},
      {"shmSize", {[](JobSpec& s) { s.large_shm = true; }, [](JobSpec& s) { s.shm_size = "8Gi"; }}},
      {"cpu", {none, [](JobSpec& s) { s.cpu = "500m"; }}},
      {"memory", {none, [](JobSpec& s) { s.memory = "2Gi"; }}},
      {"ports", {none, [](JobSpec& s) { s.ports = {submit::parse_port("8080:80")}; }}},
      {"serviceType", {[](JobSpec& s) { s.ports = {submit::parse_port("8080:80")}; },
                       [](JobSpec& s) { s.service_type = "loadbalancer"; }}},
      {"nodeType", {none, [](JobSpec& s) { s.node_type = "a100"; }}},
      {"workingDir", {none, [](JobSpec& s) { s.working_dir = "/work"; }}},
      {"cliArgv", {none, [](JobSpec& s) { s.cli_argv = {"lanectl", "submit", "train-1"}; }}},
      {"user", {none, [](JobSpec& s) { s.user = "alice"; }}},
      {"preemptibility", {none, [](JobSpec& s) { s.preemptibility = submit::Preemptibility::kNonPreemptible; }}},
      {"imagePullPolicy", {none, [](JobSpec& s) { s.image_pull_policy = "IfNotPresent"; }}},
      {"tty", {[](JobSpec& s) { s.stdin_open = true; }, [](JobSpec& s) { s.tty = true; }}},
      {"stdin", {none, [](JobSpec& s) { s.stdin_open = true; }}},
      {"attach", {[](JobSpec& s) { s.tty = s.stdin_open = true; }, [](JobSpec& s) { s.attach = true; }}},
      {"backoffLimit", {none, [](JobSpec& s) { s.backoff_limit = 2; }}},
      {"completions", {none, [](JobSpec& s) { s.completions = 4; }}},
      {"parallelism", {[](JobSpec& s) { s.completions = 4; }, [](JobSpec& s) { s.parallelism = 2; }}},
      {"ttlSecondsAfterFinished", {none, [](JobSpec& s) { s.ttl_after_finish_seconds = 90; }}},
      {"cpuLimit", {none, [](JobSpec& s) { s.cpu_limit = "2"; }}},
      {"memoryLimit", {none, [](JobSpec& s) { s.memory_limit = "4Gi"; }}},
      {"gpuMemory", {none, [](JobSpec& s) { s.gpu_memory = "4G"; }}},
      {"nodePool", {none, [](JobSpec& s) { s.node_pool = "pool-a"; }}},
      {"tolerations", {none, [](JobSpec& s) { s.tolerations = {{"nvidia.com/gpu", "", "NoSchedule"}}; }}},
      {"runAsUser", {none, [](JobSpec& s) { s.run_as_uid = 1000, s.run_as_gid = 100; }}},
      {"hostIPC", {none, [](JobSpec& s) { s.host_ipc = true; }}},
      {"hostNetwork", {none, [](JobSpec& s) { s.host_network = true; }}},
      {"cleanPodPolicy", {mpi, [](JobSpec& s) { s.clean_pod_policy = "All"; }}},
      {"migProfile", {none, [](JobSpec& s) { s.mig_profile = "1g.5gb"; }}},
      {"elastic", {none, [](JobSpec& s) { s.elastic = true; }}},
      {"preventPrivilegeEscalation", {none, [](JobSpec& s) { s.prevent_privilege_escalation = true; }}},
      {"createHomeDir", {none, [](JobSpec& s) { s.create_home_dir = true; }}},
      {"labels", {none, [](JobSpec& s) { s.labels = {{"team", "vision"}, {"example.com/stage", "tune"}}; }}},
      {"annotations", {none, [](JobSpec& s) { s.annotations = {{"note", "lr sweep, run 3"}}; }}},
  };
  return samples;
}

// The spec without and with the field of `json_key` set (REQUIREs a sample).
struct SamplePair {
  submit::JobSpec without, with;
};
inline SamplePair sample_pair(const std::string& json_key) {
  const auto& sample = field_samples().at(json_key);
  SamplePair p{sample_base(), {}};
  sample.context(p.without);
  p.with = p.without;
  sample.set(p.with);
  return p;
}

}  // namespace lane::test
