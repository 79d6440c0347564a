#include "submit/core/spec_fields.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "submit/core/validate.h"
#include "submit/core/workload_json.h"

namespace lane::submit {
using nlohmann::json;

namespace {

const JobSpec& defaults() {
  static const JobSpec spec;
  return spec;
}

const char* preemptibility_name(Preemptibility p) {
  switch (p) {
    case Preemptibility::kPreemptible: return "preemptible";
    case Preemptibility::kNonPreemptible: return "non-preemptible";
    case Preemptibility::kDefault: break;
  }
  return "";
}

// ---- The JSON form of each field type (the stored spec: keep it byte for byte) ----

json encode(const EnvVar& e) { return {{"name", e.name}, {"value", e.value}}; }
json encode(const Quantity& q) { return q.text(); }  // as written: "" when not given
json encode(const PvcMount& p) {
  json j = {{"create", p.create}, {"claim", p.claim}, {"storageClass", p.storage_class},
            {"size", encode(p.size)}, {"mountPath", p.mount_path}, {"readOnly", p.read_only}};
  if (p.must_exist) j["mustExist"] = true;  // only then: specs stored without it stay as they were
  return j;
}
json encode(const HostMount& v) {
  return {{"hostPath", v.host_path}, {"containerPath", v.container_path}, {"readOnly", v.read_only}};
}
json encode(const PortMapping& p) { return to_string(p); }
json encode(const Toleration& t) { return {{"key", t.key}, {"value", t.value}, {"effect", t.effect}}; }
json encode(JobType t) { return to_string(t); }
json encode(Preemptibility p) { return preemptibility_name(p); }
template <typename T>
json encode(const T& v) {  // strings, numbers, booleans
  return v;
}
template <typename T>
json encode(const std::optional<T>& v) {  // written only when set
  return encode(*v);
}
template <typename T>
json encode(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& item : items) out.push_back(encode(item));
  return out;
}

void decode(const json& j, EnvVar& e) { e = {j.value("name", ""), j.value("value", "")}; }
void decode(const json& j, Quantity& q) { q = Quantity(j.get<std::string>()); }
void decode(const json& j, PvcMount& p) {
  p = {j.value("create", false), j.value("claim", ""), j.value("storageClass", ""),
       j.value("size", ""), j.value("mountPath", ""), j.value("readOnly", false), j.value("mustExist", false)};
}
void decode(const json& j, HostMount& v) {
  v = {j.value("hostPath", ""), j.value("containerPath", ""), j.value("readOnly", false)};
}
void decode(const json& j, PortMapping& p) { p = parse_port(j.get<std::string>()); }
void decode(const json& j, Toleration& t) { t = {j.value("key", ""), j.value("value", ""), j.value("effect", "")}; }
void decode(const json& j, JobType& t) { t = job_type_from_string(j.get<std::string>()); }
void decode(const json& j, Preemptibility& p) {
  const std::string name = j.get<std::string>();
  p = name == preemptibility_name(Preemptibility::kPreemptible)       ? Preemptibility::kPreemptible
      : name == preemptibility_name(Preemptibility::kNonPreemptible) ? Preemptibility::kNonPreemptible
                                                                      : Preemptibility::kDefault;
}
template <typename T>
void decode(const json& j, T& v) {
  v = j.get<T>();
}
template <typename T>
void decode(const json& j, std::optional<T>& v) {
  T value{};
  decode(j, value);
  v = value;
}
template <typename T>
void decode(const json& j, std::vector<T>& items) {
  items.clear();
  for (const auto& item : j) decode(item, items.emplace_back());
}

// Whether a field's value differs from its default (vectors by their JSON: their items have no ==).
template <typename T>
bool differs(const T& value, const T& default_value) {
  return !(value == default_value);
}
template <typename T>
bool differs(const std::vector<T>& value, const std::vector<T>& default_value) {
  return encode(value) != encode(default_value);
}

// ---- Row builders ----

enum class Written { kAlways, kWhenSet };  // kWhenSet: specs without the field keep their JSON

template <typename M>
struct Member;
template <typename T>
struct Member<T JobSpec::*> {
  using type = T;
};
template <auto M>
using member_t = typename Member<decltype(M)>::type;

template <auto M>
SpecField field(std::string_view flag, std::string_view key, Written written, DescribeLine describe,
                KubeMapping kube, std::optional<LocalNote> local = std::nullopt) {
  auto is_set = [](const JobSpec& s) { return differs(s.*M, defaults().*M); };
  const std::string k(key);
  return {flag,
          key,
          is_set,
          [k, written, is_set](const JobSpec& s, json& j) {
            if (written == Written::kAlways || is_set(s)) j[k] = encode(s.*M);
          },
          [k](const json& j, JobSpec& s) {
            auto it = j.find(k);
            if (it != j.end() && !it->is_null()) decode(*it, s.*M);
          },
          std::move(describe),
          kube,
          std::move(local)};
}

DescribeLine header(std::string_view label) { return {DescribePlace::kHeader, label, nullptr}; }
DescribeLine json_only() { return {}; }
DescribeLine flag_line(std::string_view label, std::function<std::string(const JobSpec&)> value) {
  return {DescribePlace::kFlags, label, std::move(value)};
}
// The line of a flag whose value is shown as it is: text, a number, or "true".
template <auto M>
DescribeLine flag_line(std::string_view label) {
  return flag_line(label, [](const JobSpec& s) -> std::string {
    const auto& v = s.*M;
    if constexpr (std::is_same_v<member_t<M>, bool>) return "true";
    else if constexpr (std::is_same_v<member_t<M>, std::string>) return v;
    else if constexpr (std::is_same_v<member_t<M>, Quantity>) return v.text();
    else return std::to_string(v.value_or(0));
  });
}

KubeMapping on_kube(std::string_view where) { return {true, where}; }
KubeMapping not_on_kube(std::string_view why) { return {false, why}; }
LocalNote no_local_effect(std::string_view subject, std::string_view why = "",
                          std::function<bool(const JobSpec&)> applies = nullptr) {
  return {subject, why, std::move(applies), false};
}

std::string tty_stdin(const JobSpec& s) {
  return fmt::format("{} / {}{}", s.tty, s.stdin_open, s.attach ? " (--attach)" : "");
}

// --label / --annotation: "k=v, k2=v2".
template <auto M>
std::string pairs_text(const JobSpec& s) {
  std::string out;
  for (const auto& [k, v] : s.*M) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

std::string tolerations_text(const JobSpec& s) {
  std::string out;
  for (const auto& t : s.tolerations)
    out += (out.empty() ? "" : ",") + t.key + (t.value.empty() ? "" : "=" + t.value) +
           (t.effect.empty() ? "" : ":" + t.effect);
  return out;
}

// --run-as-user: two keys, one line.
SpecField run_as_user() {
  return {"--run-as-user",
          "runAsUser",
          [](const JobSpec& s) { return s.run_as_uid || s.run_as_gid; },
          [](const JobSpec& s, json& j) {
            if (s.run_as_uid) j["runAsUser"] = *s.run_as_uid;
            if (s.run_as_gid) j["runAsGroup"] = *s.run_as_gid;
          },
          [](const json& j, JobSpec& s) {
            for (auto [key, id] : {std::pair{"runAsUser", &s.run_as_uid}, std::pair{"runAsGroup", &s.run_as_gid}})
              if (auto it = j.find(key); it != j.end() && !it->is_null()) *id = it->get<int64_t>();
          },
          flag_line("RUN AS USER:",
                    [](const JobSpec& s) {
                      return fmt::format("{}:{}", s.run_as_uid.value_or(0), s.run_as_gid.value_or(0));
                    }),
          on_kube("pod securityContext runAsUser/runAsGroup"),
          no_local_effect("--run-as-user", "local jobs already run as you, or as the project's own uid under root")};
}

constexpr Written kAlways = Written::kAlways;
constexpr Written kWhenSet = Written::kWhenSet;

// What every job has: its identity, command, resources and storage (always in the JSON).
void add_workload_fields(std::vector<SpecField>& t) {
  t.push_back(field<&JobSpec::name>("--name", "name", kAlways, header("NAME:"), on_kube("every object's metadata.name")));
  t.push_back(field<&JobSpec::project>("-p/--project", "project", kAlways, header("PROJECT:"),
                                       on_kube("the namespace runai-<project>, the queue and project labels")));
  t.push_back(field<&JobSpec::type>("--interactive, submit-mpi", "type", kAlways, header("TYPE:"),
                                    on_kube("the kind (Job or MPIJob), the priority class and type labels")));
  t.push_back(field<&JobSpec::image>("-i/--image", "image", kAlways, header("IMAGE:"), on_kube("containers[].image")));
  t.push_back(field<&JobSpec::gpu>("-g/--gpu", "gpu", kAlways, header("GPUS:"),
                                   on_kube("limits nvidia.com/gpu, or the pod annotation gpu-fraction")));
  t.push_back(field<&JobSpec::processes>("--processes", "processes", kAlways, header("PROCESSES:"),
                                         on_kube("the MPIJob's Worker replicas")));
  t.push_back(field<&JobSpec::slots_per_worker>("--slots-per-worker", "slotsPerWorker", kAlways, json_only(),
                                                on_kube("the MPIJob's slotsPerWorker")));
  t.push_back(field<&JobSpec::env>("-e/--environment", "env", kAlways, json_only(), on_kube("containers[].env")));
  t.push_back(field<&JobSpec::command>("--command", "command", kAlways, json_only(), on_kube("containers[].command")));
  t.push_back(field<&JobSpec::args>("-- ARGS, --args", "args", kAlways, json_only(), on_kube("containers[].args")));
  t.push_back(field<&JobSpec::pvcs>("--pvc", "pvcs", kAlways, json_only(),
                                    on_kube("PersistentVolumeClaims, pod volumes and volumeMounts")));
  t.push_back(field<&JobSpec::volumes>("-v/--volume", "volumes", kAlways, json_only(),
                                       on_kube("hostPath volumes and volumeMounts")));
  t.push_back(field<&JobSpec::large_shm>("--large-shm", "largeShm", kAlways, json_only(),
                                         on_kube("a Memory emptyDir at /dev/shm")));
  t.push_back(field<&JobSpec::shm_size>("--shm-size", "shmSize", kAlways, json_only(),
                                        on_kube("the /dev/shm emptyDir's sizeLimit")));
  t.push_back(field<&JobSpec::cpu>("--cpu", "cpu", kAlways, json_only(), on_kube("resources.requests.cpu")));
  t.push_back(field<&JobSpec::memory>("--memory", "memory", kAlways, json_only(), on_kube("resources.requests.memory")));
  t.push_back(field<&JobSpec::ports>("--port", "ports", kAlways, json_only(),
                                     on_kube("containers[].ports, the Service's ports, the Ingress paths")));
  t.push_back(field<&JobSpec::service_type>("-s/--service-type", "serviceType", kAlways, json_only(),
                                            on_kube("the Service's type, an Ingress")));
  t.push_back(field<&JobSpec::node_type>("--node-type", "nodeType", kAlways, json_only(),
                                         on_kube("nodeSelector run.ai/type")));
  t.push_back(field<&JobSpec::working_dir>("--working-dir", "workingDir", kAlways, json_only(),
                                           on_kube("containers[].workingDir")));
  t.push_back(field<&JobSpec::cli_argv>("", "cliArgv", kAlways, header("COMMAND LINE:"),
                                        on_kube("the workload annotation runai-cli-command")));
  t.push_back(field<&JobSpec::user>("", "user", kAlways, json_only(), on_kube("the workload annotation user")));
}

// The Run:AI flags, first half (docs/cli.md, "Run:AI flags and their local meaning").
void add_run_ai_fields(std::vector<SpecField>& t) {
  t.push_back(field<&JobSpec::preemptibility>(
      "--preemptible/--non-preemptible", "preemptibility", kWhenSet,
      flag_line("PREEMPTIBLE:", [](const JobSpec& s) { return is_preemptible(s) ? "true" : "false"; }),
      on_kube("label kai.scheduler/preemptibility")));
  LocalNote pull = no_local_effect("--image-pull-policy", "it runs the project's own images, never pulls",
                                   [](const JobSpec& s) {
                                     return s.image_pull_policy == "Always" || s.image_pull_policy == "IfNotPresent";
                                   });
  pull.with_value = true;
  t.push_back(field<&JobSpec::image_pull_policy>("--image-pull-policy, --local-image, --always-pull-image",
                                                 "imagePullPolicy", kWhenSet,
                                                 flag_line<&JobSpec::image_pull_policy>("IMAGE PULL POLICY:"),
                                                 on_kube("containers[].imagePullPolicy"), pull));
  // With --attach, the attach itself says it (once) when it starts following the job.
  const char* kNoStdin = "a local job's stdin is /dev/null";
  t.push_back(field<&JobSpec::tty>("-t/--tty", "tty", kWhenSet, flag_line("TTY / STDIN:", tty_stdin),
                                   on_kube("containers[].tty"),
                                   no_local_effect("--tty/--stdin", kNoStdin,
                                                   [](const JobSpec& s) { return s.tty && !s.attach; })));
  t.push_back(field<&JobSpec::stdin_open>("--stdin", "stdin", kWhenSet, flag_line("TTY / STDIN:", tty_stdin),
                                          on_kube("containers[].stdin"),
                                          no_local_effect("--tty/--stdin", kNoStdin,
                                                          [](const JobSpec& s) { return s.stdin_open && !s.attach; })));
  t.push_back(field<&JobSpec::attach>("--attach", "attach", kWhenSet, flag_line("TTY / STDIN:", tty_stdin),
                                      not_on_kube("lanectl itself follows the job after submitting it; the -t and "
                                                  "--stdin it implies are mapped")));
  t.push_back(field<&JobSpec::backoff_limit>("--backoff-limit", "backoffLimit", kWhenSet,
                                             flag_line<&JobSpec::backoff_limit>("BACKOFF LIMIT:"),
                                             on_kube("the Job's backoffLimit, the MPIJob's runPolicy.backoffLimit")));
  t.push_back(field<&JobSpec::completions>("--completions", "completions", kWhenSet,
                                           flag_line<&JobSpec::completions>("COMPLETIONS:"),
                                           on_kube("the Job's completions")));
  t.push_back(field<&JobSpec::parallelism>(
      "--parallelism", "parallelism", kWhenSet, flag_line<&JobSpec::parallelism>("PARALLELISM:"),
      on_kube("the Job's parallelism"),
      no_local_effect("--parallelism", "the --completions runs follow one another",
                      [](const JobSpec& s) { return s.parallelism.value_or(1) > 1; })));
  t.push_back(field<&JobSpec::ttl_after_finish_seconds>(
      "--ttl-after-finish", "ttlSecondsAfterFinished", kWhenSet,
      flag_line("TTL AFTER FINISH:",
                [](const JobSpec& s) { return fmt::format("{}s", s.ttl_after_finish_seconds.value_or(0)); }),
      on_kube("ttlSecondsAfterFinished (the Job's, the MPIJob's runPolicy)")));
}

// The Run:AI flags, second half: limits, placement and the pod's security settings.
void add_pod_fields(std::vector<SpecField>& t) {
  const char* kLimits = "--cpu-limit/--memory-limit";
  const char* kNoLimits = "local jobs have no CPU or memory limits";
  const char* kNoGpu = "GPUs are shared by -g FRACTION here; this job gets no GPU";
  t.push_back(field<&JobSpec::cpu_limit>("--cpu-limit", "cpuLimit", kWhenSet, flag_line<&JobSpec::cpu_limit>("CPU LIMIT:"),
                                         on_kube("resources.limits.cpu"), no_local_effect(kLimits, kNoLimits)));
  t.push_back(field<&JobSpec::memory_limit>("--memory-limit", "memoryLimit", kWhenSet,
                                            flag_line<&JobSpec::memory_limit>("MEMORY LIMIT:"),
                                            on_kube("resources.limits.memory"), no_local_effect(kLimits, kNoLimits)));
  t.push_back(field<&JobSpec::gpu_memory>("--gpu-memory", "gpuMemory", kWhenSet,
                                          flag_line<&JobSpec::gpu_memory>("GPU MEMORY:"),
                                          on_kube("the pod annotation gpu-memory (MB)"),
                                          no_local_effect("--gpu-memory", kNoGpu)));
  t.push_back(field<&JobSpec::node_pool>("--node-pool", "nodePool", kWhenSet, flag_line<&JobSpec::node_pool>("NODE POOL:"),
                                         on_kube("label and nodeSelector kai.scheduler/node-pool"),
                                         no_local_effect("--node-pool")));
  t.push_back(field<&JobSpec::tolerations>("--toleration", "tolerations", kWhenSet,
                                           flag_line("TOLERATIONS:", tolerations_text), on_kube("pod tolerations"),
                                           no_local_effect("--toleration")));
  t.push_back(run_as_user());
  t.push_back(field<&JobSpec::host_ipc>("--host-ipc", "hostIPC", kWhenSet, flag_line<&JobSpec::host_ipc>("HOST IPC:"),
                                        on_kube("pod hostIPC"),
                                        no_local_effect("--host-ipc", "local jobs keep their own IPC namespace")));
  t.push_back(field<&JobSpec::host_network>("--host-network", "hostNetwork", kWhenSet,
                                            flag_line<&JobSpec::host_network>("HOST NETWORK:"),
                                            on_kube("pod hostNetwork")));
  t.push_back(field<&JobSpec::clean_pod_policy>("--clean-pod-policy", "cleanPodPolicy", kWhenSet,
                                                flag_line<&JobSpec::clean_pod_policy>("CLEAN POD POLICY:"),
                                                on_kube("the MPIJob's runPolicy.cleanPodPolicy"),
                                                no_local_effect("--clean-pod-policy", "all ranks end with the job")));
  t.push_back(field<&JobSpec::mig_profile>("--mig/--mig-profile", "migProfile", kWhenSet,
                                           flag_line<&JobSpec::mig_profile>("MIG PROFILE:"),
                                           on_kube("the pod annotation nvidia.com/mig-<profile>"),
                                           no_local_effect("--mig", kNoGpu)));
  t.push_back(field<&JobSpec::elastic>("--elastic", "elastic", kWhenSet, flag_line<&JobSpec::elastic>("ELASTIC:"),
                                       on_kube("the workload annotation elastic"),
                                       no_local_effect("--elastic", "a local job runs with the ranks it was given")));
  // Honoured locally: every local job runs with no_new_privs.
  t.push_back(field<&JobSpec::prevent_privilege_escalation>(
      "--prevent-privilege-escalation", "preventPrivilegeEscalation", kWhenSet,
      flag_line<&JobSpec::prevent_privilege_escalation>("NO PRIVILEGE ESCALATION:"),
      on_kube("container securityContext.allowPrivilegeEscalation false")));
  t.push_back(field<&JobSpec::create_home_dir>(
      "--create-home-dir", "createHomeDir", kWhenSet,
      flag_line("HOME DIR:", [](const JobSpec&) { return std::string(kRunAiHomeDir); }),
      on_kube("an emptyDir mounted as HOME"),
      no_local_effect("--create-home-dir", "local jobs get a private /tmp; HOME is not set")));
  // Honoured locally: `list -l` selects on labels; describe shows both.
  t.push_back(field<&JobSpec::labels>("--label", "labels", kWhenSet, flag_line("LABELS:", pairs_text<&JobSpec::labels>),
                                      on_kube("the workload's and its pod templates' metadata.labels")));
  t.push_back(field<&JobSpec::annotations>("--annotation", "annotations", kWhenSet,
                                           flag_line("ANNOTATIONS:", pairs_text<&JobSpec::annotations>),
                                           on_kube("the workload's metadata.annotations")));
}

std::vector<SpecField> make_table() {
  std::vector<SpecField> t;
  add_workload_fields(t);
  add_run_ai_fields(t);
  add_pod_fields(t);
  return t;
}

}  // namespace

const std::vector<SpecField>& spec_fields() {
  static const std::vector<SpecField> table = make_table();
  return table;
}

std::vector<std::pair<std::string, std::string>> describe_flag_lines(const JobSpec& spec) {
  std::vector<std::pair<std::string, std::string>> lines;
  for (const auto& f : spec_fields()) {
    if (f.describe.place != DescribePlace::kFlags || !f.is_set(spec)) continue;
    const std::string label(f.describe.label);
    auto same = [&label](const auto& line) { return line.first == label; };
    if (std::none_of(lines.begin(), lines.end(), same)) lines.emplace_back(label, f.describe.value(spec));
  }
  return lines;
}

std::vector<std::pair<std::string, std::string>> unhonoured_locally(const JobSpec& spec) {
  std::vector<std::pair<std::string, std::string>> notes;
  for (const auto& f : spec_fields()) {
    if (!f.local || !(f.local->applies ? f.local->applies(spec) : f.is_set(spec))) continue;
    std::string subject(f.local->subject);
    if (f.local->with_value) subject += " " + f.describe.value(spec);
    auto same = [&subject](const auto& note) { return note.first == subject; };
    if (std::none_of(notes.begin(), notes.end(), same)) notes.emplace_back(subject, std::string(f.local->why));
  }
  return notes;
}

}  // namespace lane::submit
