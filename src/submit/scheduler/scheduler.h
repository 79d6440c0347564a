#pragma once
// The fair-share GPU scheduler: a pure, deterministic function from the cluster state
// (nodes, projects with GPU quotas, running and pending workloads) to a Decision (what to
// start where, what to preempt, why the rest waits). No clock, no randomness, no I/O:
// the same state always gives the same Decision, whatever the order of the input vectors.
// Semantics and worked examples: docs/scheduler.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "submit/core/workload.h"

namespace lane::submit::sched {

struct Node {
  std::string name;
  int gpus = 0;  // whole physical GPUs, indexed 0..gpus-1
};

struct Project {
  std::string name;
  double gpu_quota = 0;             // guaranteed ("deserved") GPUs
  bool over_quota_allowed = true;   // may Train/Mpi jobs use idle GPUs beyond the quota?
};

// Where one pod runs: `gpu_indices` on `node`, taking `share_per_gpu` of each of them
// (1.0 for whole GPUs, 0 < share < 1 for a fractional pod on a single GPU, 0 for CPU-only pods).
struct PodPlacement {
  std::string node;
  std::vector<int> gpu_indices;
  double share_per_gpu = 1.0;
};

struct Workload {
  std::string id;            // unique in the state; use "<project>/<job name>"
  std::string project;
  JobType type = JobType::kTrain;  // Interactive: within quota, never preempted; Train/Mpi: may go over quota,
                                   // preemptible (unless `preemptible` below says otherwise)
  double gpu_per_pod = 0;    // 0 (CPU only), a fraction 0 < g < 1, or a whole number 1, 2, ...
  int pods = 1;              // Mpi: worker processes, gang-scheduled (all or none); otherwise 1
  int64_t queue_order = 0;   // submission order: FIFO within a project, lower = older
  bool running = false;      // currently placed (then `placement` has `pods` entries)
  std::vector<PodPlacement> placement;
  // --preemptible / --non-preemptible; unset: by type (Interactive not preemptible, the rest are).
  // A non-preemptible workload runs only within its project's quota and is never preempted.
  std::optional<bool> preemptible;

  double total_gpus() const { return gpu_per_pod * pods; }
  bool is_preemptible() const { return preemptible.value_or(type != JobType::kInteractive); }
  // How a quota message names such jobs: "interactive jobs" / "non-preemptible jobs".
  const char* kind_in_quota() const { return type == JobType::kInteractive ? "interactive jobs" : "non-preemptible jobs"; }
};

struct ClusterState {
  std::vector<Node> nodes;
  std::vector<Project> projects;
  std::vector<Workload> workloads;   // running and pending; finished jobs are left out
};

// One line of `lanectl project list` plus the reasons behind the numbers.
struct ProjectReport {
  std::string name;
  double quota = 0;
  double fair_share = 0;   // what the project is entitled to this cycle (quota + its part of the spare GPUs)
  double allocated = 0;    // GPUs held after this Decision is applied
  double requested = 0;    // GPUs of all its running + pending jobs
  int running = 0;         // jobs running after this Decision is applied
  int pending = 0;         // jobs still pending after this Decision
  bool over_quota = false; // allocated > quota
  std::vector<std::string> explanation;  // human-readable lines, one fact each
};

struct StartedJob {
  std::string id;
  std::vector<PodPlacement> placement;  // one entry per pod
};

struct PreemptedJob {
  std::string id;
  std::string reason;  // "preempted: project team-b is below its fair share ..."
};

struct Decision {
  std::vector<StartedJob> start;      // pending jobs to start now, in start order
  std::vector<PreemptedJob> preempt;  // running jobs to stop and requeue (they become pending)
  std::map<std::string, std::string> pending_reason;  // every job still pending -> why it waits
  std::vector<ProjectReport> projects;                // sorted by name
};

// One scheduling pass. Throws lane::Error when the state is inconsistent (duplicate node or
// workload ids, a running placement on an unknown node/GPU or over 1.0 of a GPU).
// Workloads of a project missing from `projects` are scheduled as if it had quota 0.
Decision schedule(const ClusterState& state);

// Why `job` could never run on this cluster, even if it were empty (too many GPUs in total,
// a pod needing more GPUs than any node has, a request like 1.5 GPUs, an Interactive job
// above its project's quota...). nullopt when an empty cluster could run it. The CLI uses this
// to reject a submission up front.
std::optional<std::string> never_fits(const ClusterState& state, const Workload& job);
// never_fits() followed by the way out, for a user: for the cluster's limits, declaring its GPUs
// (`lanectl cluster set-nodes`) or asking fewer; for the project's quota, asking fewer or raising
// the quota (`lanectl project set`), and for a preemptible job in a project without over-quota,
// allowing over-quota.
std::optional<std::string> never_fits_with_fix(const ClusterState& state, const Workload& job);

}  // namespace lane::submit::sched
