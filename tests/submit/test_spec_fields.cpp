// The field table (submit/core/spec_fields.h): every row reaches the stored JSON in both
// directions, and the JSON, describe's flag lines and the local notes are those of the hand-written
// code the table replaced, byte for byte (stored specs are read by older and newer binaries).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "submit/core/spec_fields.h"
#include "submit/core/validate.h"
#include "submit/core/workload_json.h"
#include "support/spec_field_samples.h"

using namespace lane::submit;
using lane::test::sample_pair;

namespace {

JobSpec everything_set() {
  JobSpec s;
  s.name = "train-1"; s.project = "lane-detection"; s.type = JobType::kInteractive; s.image = "scnn-train";
  s.gpu = 0.5;
  s.env = {{"BATCH_SIZE", "33"}, {"TOKEN", "SECRET:s,k"}};
  s.command = {"python", "train.py"}; s.args = {"--epochs", "2"};
  s.pvcs = {{true, "", "fast", "10Gi", "/data", false}, {false, "pvc-x-0", "", "", "/mnt", true}};
  s.volumes = {{"/host", "/in", true}};
  s.large_shm = true; s.shm_size = "8Gi"; s.cpu = "500m"; s.memory = "2Gi";
  s.ports = {parse_port("8080:80"), parse_port("8888")};
  s.service_type = "nodeport"; s.node_type = "a100"; s.working_dir = "/work";
  s.cli_argv = {"lanectl", "submit", "train-1"}; s.user = "alice";
  s.preemptibility = Preemptibility::kPreemptible; s.image_pull_policy = "IfNotPresent";
  s.tty = s.stdin_open = s.attach = true; s.backoff_limit = 0; s.completions = 4; s.parallelism = 2;
  s.ttl_after_finish_seconds = 90; s.cpu_limit = "1.5"; s.memory_limit = "4Gi"; s.gpu_memory = "4G";
  s.node_pool = "pool-a"; s.tolerations = {{"nvidia.com/gpu", "", "NoSchedule"}, {"pool", "a100", ""}};
  s.run_as_uid = 1000; s.run_as_gid = 100; s.host_ipc = s.host_network = true; s.clean_pod_policy = "All";
  s.mig_profile = "1g.5gb"; s.elastic = s.prevent_privilege_escalation = s.create_home_dir = true;
  return s;
}

}  // namespace

TEST_CASE("spec fields: the stored JSON is the one written before the table, byte for byte", "[submit][fast]") {
  // Dumped by the hand-written spec_to_json of 9633205.
  CHECK(spec_to_json(JobSpec{}).dump() == R"json({"args":[],"cliArgv":[],"command":[],"cpu":"","env":[],"gpu":0.0,"image":"","largeShm":false,"memory":"","name":"","nodeType":"","ports":[],"processes":1,"project":"","pvcs":[],"serviceType":"","shmSize":"","slotsPerWorker":1,"type":"Train","user":"","volumes":[],"workingDir":""})json");
  CHECK(spec_to_json(everything_set()).dump() == R"json({"args":["--epochs","2"],"attach":true,"backoffLimit":0,"cleanPodPolicy":"All","cliArgv":["lanectl","submit","train-1"],"command":["python","train.py"],"completions":4,"cpu":"500m","cpuLimit":"1.5","createHomeDir":true,"elastic":true,"env":[{"name":"BATCH_SIZE","value":"33"},{"name":"TOKEN","value":"SECRET:s,k"}],"gpu":0.5,"gpuMemory":"4G","hostIPC":true,"hostNetwork":true,"image":"scnn-train","imagePullPolicy":"IfNotPresent","largeShm":true,"memory":"2Gi","memoryLimit":"4Gi","migProfile":"1g.5gb","name":"train-1","nodePool":"pool-a","nodeType":"a100","parallelism":2,"ports":["8080:80","8888"],"preemptibility":"preemptible","preventPrivilegeEscalation":true,"processes":1,"project":"lane-detection","pvcs":[{"claim":"","create":true,"mountPath":"/data","readOnly":false,"size":"10Gi","storageClass":"fast"},{"claim":"pvc-x-0","create":false,"mountPath":"/mnt","readOnly":true,"size":"","storageClass":""}],"runAsGroup":100,"runAsUser":1000,"serviceType":"nodeport","shmSize":"8Gi","slotsPerWorker":1,"stdin":true,"tolerations":[{"effect":"NoSchedule","key":"nvidia.com/gpu","value":""},{"effect":"","key":"pool","value":"a100"}],"ttlSecondsAfterFinished":90,"tty":true,"type":"Interactive","user":"alice","volumes":[{"containerPath":"/in","hostPath":"/host","readOnly":true}],"workingDir":"/work"})json");
  const auto j = spec_to_json(everything_set());
  CHECK(spec_to_json(spec_from_json(j)) == j);
}

TEST_CASE("spec fields: one row per flag, each with a JSON key of its own and a sample", "[submit][fast]") {
  std::set<std::string_view> keys;
  for (const auto& f : spec_fields()) {
    INFO(f.json_key);
    CHECK(keys.insert(f.json_key).second);
    CHECK(lane::test::field_samples().count(std::string(f.json_key)) == 1);
    CHECK_FALSE(f.kube.where.empty());  // where Kubernetes gets it, or why it does not
    if (f.describe.place == DescribePlace::kFlags) CHECK(f.describe.value);
  }
  CHECK(keys.size() == lane::test::field_samples().size());
}

TEST_CASE("spec fields: every row is written by spec_to_json and read back by spec_from_json", "[submit][fast]") {
  for (const auto& f : spec_fields()) {
    INFO(f.json_key);
    const std::string key(f.json_key);
    auto [without, with] = sample_pair(key);
    CHECK_NOTHROW(validate(with));
    CHECK(f.is_set(with));
    const auto j = spec_to_json(with);
    REQUIRE(j.contains(key));
    const auto before = spec_to_json(without);
    CHECK((!before.contains(key) || before[key] != j[key]));
    const JobSpec back = spec_from_json(j);
    CHECK(f.is_set(back));
    CHECK(spec_to_json(back) == j);  // a row that did not read its key would lose it here
  }
}

TEST_CASE("spec fields: describe's flag lines, in the order and wording of before the table", "[submit][fast]") {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"PREEMPTIBLE:", "true"}, {"IMAGE PULL POLICY:", "IfNotPresent"}, {"TTY / STDIN:", "true / true (--attach)"},
      {"BACKOFF LIMIT:", "0"}, {"COMPLETIONS:", "4"}, {"PARALLELISM:", "2"}, {"TTL AFTER FINISH:", "90s"},
      {"CPU LIMIT:", "1.5"}, {"MEMORY LIMIT:", "4Gi"}, {"GPU MEMORY:", "4G"}, {"NODE POOL:", "pool-a"},
      {"TOLERATIONS:", "nvidia.com/gpu:NoSchedule,pool=a100"}, {"RUN AS USER:", "1000:100"}, {"HOST IPC:", "true"},
      {"HOST NETWORK:", "true"}, {"CLEAN POD POLICY:", "All"}, {"MIG PROFILE:", "1g.5gb"}, {"ELASTIC:", "true"},
      {"NO PRIVILEGE ESCALATION:", "true"}, {"HOME DIR:", kRunAiHomeDir}};
  CHECK(describe_flag_lines(everything_set()) == expected);
  CHECK(describe_flag_lines(JobSpec{}).empty());
  JobSpec s;
  s.stdin_open = true;
  CHECK(describe_flag_lines(s) == std::vector<std::pair<std::string, std::string>>{{"TTY / STDIN:", "false / true"}});
}

TEST_CASE("spec fields: the local backend's notes, one per subject, in the order of before the table", "[submit][fast]") {
  JobSpec s = everything_set();
  s.attach = false;  // with --attach, the attach says it itself
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"--image-pull-policy IfNotPresent", "it runs the project's own images, never pulls"},
      {"--tty/--stdin", "a local job's stdin is /dev/null"},
      {"--parallelism", "the --completions runs follow one another"},
      {"--cpu-limit/--memory-limit", "local jobs have no CPU or memory limits"},
      {"--gpu-memory", "GPUs are shared by -g FRACTION here; this job gets no GPU"},
      {"--node-pool", ""},
      {"--toleration", ""},
      {"--run-as-user", "local jobs already run as you, or as the project's own uid under root"},
      {"--host-ipc", "local jobs keep their own IPC namespace"},
      {"--clean-pod-policy", "all ranks end with the job"},
      {"--mig", "GPUs are shared by -g FRACTION here; this job gets no GPU"},
      {"--elastic", "a local job runs with the ranks it was given"},
      {"--create-home-dir", "local jobs get a private /tmp; HOME is not set"}};
  CHECK(unhonoured_locally(s) == expected);
  s.attach = true;
  s.image_pull_policy = "Never";  // what the local backend does anyway
  s.parallelism = 1;
  CHECK(unhonoured_locally(s).size() == expected.size() - 3);
  for (const auto& f : spec_fields()) {  // a row with a note gives it for its sample
    if (!f.local) continue;
    INFO(f.json_key);
    auto [without, with] = sample_pair(std::string(f.json_key));
    const auto notes = unhonoured_locally(with);
    auto names_it = [&f](const auto& note) { return note.first.rfind(std::string(f.local->subject), 0) == 0; };
    CHECK(std::count_if(notes.begin(), notes.end(), names_it) == 1);
  }
}
