#pragma once
// The workload model: what a user submits and what a backend reports back. Shared by the
// CLI, the scheduler, the local backend and the Kubernetes backend. Field names follow the
// Run:AI v1 CLI so that `runai` command lines map one to one.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "submit/core/quantity.h"

namespace lane::submit {

// kPyTorch: `submit-dist pytorch`, a Kubeflow PyTorchJob (1 master + `processes` workers).
enum class JobType { kTrain, kInteractive, kMpi, kPyTorch };
const char* to_string(JobType type);  // "Train", "Interactive", "Mpi", "PyTorch"
// MPI and PyTorch jobs: several pods, sized by --processes / --workers.
bool is_distributed(JobType type);

// Run:AI status vocabulary. kSuspended: stopped by `lanectl suspend` (Kubernetes: spec.suspend);
// the scheduler leaves it alone until `lanectl resume` makes it Pending again.
enum class JobStatus { kPending, kRunning, kSucceeded, kFailed, kDeleted, kPreempted, kUnknown, kSuspended };
const char* to_string(JobStatus status);  // "Pending", "Running", ...

// --pvc: either a new claim `[StorageClass]:Size:MountPath[:ro]` (named pvc-<job>-<index>)
// or an existing one `ExistingClaim:MountPath[:ro]`.
struct PvcMount {
  bool create = false;         // true: a new claim (claim_name: pvc-<job>-<index> unless named)
  std::string claim;           // existing claim; a new claim's own name (--new-pvc claimname=),
                               // else empty until the generated name is known
  std::string storage_class;   // new claims only; empty = default class
  Quantity size;               // new claims only ("3Gi"; at least kMinPvcBytes: validate.h)
  std::string mount_path;      // absolute path inside the job
  bool read_only = false;
  bool must_exist = false;     // --existing-pvc: a missing claim is an error (the local backend
                               // creates a missing claim of --pvc CLAIM:PATH, as runai does)
};

// The claim a new --pvc entry creates: pvc-<job>-<index> (index counts all --pvc entries).
std::string generated_claim_name(const std::string& job, size_t index);

// -v HOST:CONTAINER[:ro]
struct HostMount {
  std::string host_path;
  std::string container_path;
  bool read_only = false;
};

struct EnvVar {
  std::string name;
  std::string value;
};

// An environment variable name: letters, digits and '_', not starting with a digit.
bool is_env_name(std::string_view name);

// --port "[EXTERNAL:]CONTAINER" with both ports in 1..65535. A bare CONTAINER exposes the same
// port (external_given false: with --service-type nodeport, Kubernetes picks the node port).
struct PortMapping {
  int external = 0;
  int container = 0;
  bool external_given = false;
};
std::optional<PortMapping> parse_port_mapping(std::string_view text);
// The same for --port and for a stored spec: UsageError naming the value and the forms.
PortMapping parse_port(std::string_view text);
std::string to_string(const PortMapping& port);  // as written: "8080:80", or "80"

// --preemptible (interactive jobs that may be preempted) and --non-preemptible (training and MPI
// jobs that stay within the project's quota and are never preempted); kDefault: interactive jobs
// are non-preemptible, the others preemptible (Run:AI / KAI).
enum class Preemptibility { kDefault, kPreemptible, kNonPreemptible };

// --toleration KEY[=VALUE][:EFFECT] (a pod toleration): operator Equal with a VALUE, Exists
// without one; no EFFECT tolerates every effect of that taint.
struct Toleration {
  std::string key;
  std::string value;    // "" with operator Exists
  std::string effect;   // "" | NoSchedule | PreferNoSchedule | NoExecute
};

struct JobSpec;
// Whether the scheduler may preempt the job (the local scheduler, the PREEMPTIBLE column of `list
// -o wide`): --preemptible/--non-preemptible, else by type (interactive jobs are not).
bool is_preemptible(const JobSpec& spec);
// The TYPE runai shows: "Interactive-Preemptible" for a preemptible interactive job, else to_string(type).
std::string type_label(const JobSpec& spec);

struct JobSpec {
  std::string name;
  std::string project;
  JobType type = JobType::kTrain;
  std::string image;
  double gpu = 0;             // per process; fractions (0 < g < 1) share a physical GPU
  int processes = 1;          // MPI workers (submit-mpi --processes), PyTorch workers (--workers)
  int slots_per_worker = 1;   // submit-mpi --slots-per-worker
  std::vector<EnvVar> env;
  // Command: with command_overrides_entrypoint the first element replaces the image's
  // entrypoint; otherwise `command` is empty and `args` are appended to the entrypoint.
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<PvcMount> pvcs;
  std::vector<HostMount> volumes;
  bool large_shm = false;
  Quantity shm_size;          // --shm-size: the /dev/shm size with --large-shm (emptyDir sizeLimit)
  Quantity cpu;               // requests.cpu
  Quantity memory;            // requests.memory
  std::vector<PortMapping> ports;
  std::string service_type;   // portforward | loadbalancer | nodeport | ingress
  std::string node_type;      // nodeSelector run.ai/type
  std::string working_dir;
  std::vector<std::string> cli_argv;  // the command line that created it (describe: COMMAND LINE)
  std::string user;

  // Run:AI flags recorded for both backends (docs/cli.md, "Run:AI flags and their local meaning").
  // Every field below is optional in stored specs: an older spec without it loads with the default.
  Preemptibility preemptibility = Preemptibility::kDefault;  // --preemptible / --non-preemptible
  std::string image_pull_policy;  // Always | IfNotPresent | Never; "" = the Kubernetes default
                                  // (--local-image = Never, --always-pull-image = Always)
  bool tty = false;               // -t/--tty: allocate a TTY (needs --stdin)
  bool stdin_open = false;        // --stdin: keep stdin open
  bool attach = false;            // --attach: tty + stdin, then follow the job once it starts
  std::optional<int> backoff_limit;   // --backoff-limit; unset = 6 (training), 0 (interactive)
  std::optional<int> completions;     // --completions (batch Job)
  std::optional<int> parallelism;     // --parallelism (batch Job; > 1 needs --completions)
  std::optional<int64_t> ttl_after_finish_seconds;  // --ttl-after-finish (duration.h; ttlSecondsAfterFinished)
  Quantity cpu_limit;             // --cpu-limit: limits.cpu
  Quantity memory_limit;          // --memory-limit: limits.memory
  Quantity gpu_memory;            // --gpu-memory: pod annotation gpu-memory in MB
  std::string node_pool;          // --node-pool: nodeSelector kai.scheduler/node-pool
  std::vector<Toleration> tolerations;  // --toleration KEY[=VALUE][:EFFECT] (repeatable)
  std::optional<int64_t> run_as_uid;    // --run-as-user: the submitter's uid and gid,
  std::optional<int64_t> run_as_gid;    //   taken at submit (securityContext runAsUser/Group)
  bool host_ipc = false;          // --host-ipc: pod hostIPC
  bool host_network = false;      // --host-network: pod hostNetwork
  std::string clean_pod_policy;   // submit-mpi --clean-pod-policy Running | All | None; "" = Running
  std::string mig_profile;        // --mig / --mig-profile 1g.5gb ... 7g.40gb: pod annotation nvidia.com/mig-<p>
  bool elastic = false;           // --elastic: workload annotation elastic
  bool prevent_privilege_escalation = false;  // container securityContext.allowPrivilegeEscalation false
  bool create_home_dir = false;   // --create-home-dir: HOME on an emptyDir /home/runai-home
  std::map<std::string, std::string> labels;       // --label KEY=VALUE: `list -l`; workload and pod labels
  std::map<std::string, std::string> annotations;  // --annotation KEY=VALUE: workload annotations

  // The processes that get `gpu` GPUs each: MPI workers; a PyTorch job's master and workers; else 1.
  int gpu_ranks() const { return type == JobType::kMpi ? processes : type == JobType::kPyTorch ? processes + 1 : 1; }
  double total_gpus() const { return gpu * gpu_ranks(); }
};

// The claim --pvc entry `index` mounts: its claim, or pvc-<job>-<index> for a new unnamed one.
std::string claim_name(const JobSpec& spec, size_t index);

// For anything printed or annotated: `spec` with the values of secret-looking -e names, the
// secret parts of other values, command and args, and their spelling in cli_argv masked
// (common/secrets.h). The job itself runs with `spec`.
JobSpec masked_for_display(const JobSpec& spec);

// "SECRET:<secret>,<key>": an env value read from a Kubernetes Secret (valueFrom.secretKeyRef).
struct SecretRef {
  std::string secret, key;
};
std::optional<SecretRef> parse_secret_ref(const std::string& value);

struct JobEvent {
  int64_t time_unix_ms = 0;
  std::string source;   // "job/<name>", "pod/<name>", "scheduler"
  std::string type;     // Normal | Warning
  std::string reason;   // Scheduled, Preempted, Resumed, Started, Completed, Failed, ...
  std::string message;
};

struct PodInfo {
  std::string name;
  std::string status;   // Pending | Running | Succeeded | Failed
  std::string role;     // launcher | worker | main
  std::string node;     // empty when unscheduled
  std::vector<int> gpu_indices;  // physical GPUs on that node
  double gpu_share = 0;          // fraction of each GPU (1 for whole GPUs)
  int64_t created_unix_ms = 0;
  int64_t started_unix_ms = 0;   // 0 = not started (Kubernetes: status.startTime)
  std::string ip;                // the pod's IP (Kubernetes: status.podIP); empty when unknown
};

struct JobInfo {
  JobSpec spec;
  JobStatus status = JobStatus::kPending;
  std::string status_reason;     // why Pending / Failed / Preempted, shown by describe
  double gpus_allocated = 0;
  std::vector<std::string> nodes;
  int pods_running = 0;
  int pods_pending = 0;
  std::vector<PodInfo> pods;
  std::vector<JobEvent> events;
  std::optional<int> exit_code;
  int64_t created_unix_ms = 0;
  int64_t started_unix_ms = 0;   // 0 = never started
  int64_t finished_unix_ms = 0;  // 0 = not finished
  // SERVICE URL(S) of list/describe, from the objects' status: "<host>:<port>" for a node port or
  // a load balancer, "<host>/<path>" for an ingress; empty until the cluster reports an address.
  std::vector<std::string> service_urls;
};

// Projects are namespaces `runai-<project>` on Kubernetes, as with Run:AI.
inline constexpr const char* kProjectNamespacePrefix = "runai-";
// The namespace of a project, and the project of a namespace ("" when `ns` is not a project's).
std::string project_namespace(const std::string& project);
std::string namespace_project(const std::string& ns);

}  // namespace lane::submit
