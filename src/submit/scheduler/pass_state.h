#pragma once
// Internal: the bookkeeping of one scheduling pass, per project and per job, and the state the
// phases share (load_pass builds it; allocate/reclaim change it; make_decision reads it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "submit/scheduler/fair_share.h"
#include "submit/scheduler/gpu_capacity.h"
#include "submit/scheduler/never_fits.h"
#include "submit/scheduler/scheduler.h"

namespace lane::submit::sched::detail {

struct ProjectState {
  Project spec;
  bool declared = true;      // false: only named by workloads (scheduled with quota 0)
  int64_t quota = 0;         // units
  int64_t requested = 0;     // units of all its jobs, running and pending
  int64_t demand = 0;        // usable demand (units) behind the fair share
  FairShare share;
  int64_t fair = 0;          // share.total() in units
  int64_t alloc = 0;         // units held right now (changes during the pass)
  std::vector<int> pending;  // job indices, FIFO
  int started = 0;
  int preempted = 0;
};

// How the reclaim phase treated a job that stayed pending.
enum class ReclaimOutcome { kNotTried, kFailed, kBehindOlderJob };

struct JobState {
  const Workload* w = nullptr;
  int project = -1;
  PodShape shape;
  int64_t need = 0;                    // units of all pods
  std::optional<std::string> never;    // never_fits() reason; such jobs are not scheduled
  bool was_running = false;            // running in the input
  bool running = false;                // running now (false once preempted)
  bool started = false;                // started by this pass
  std::vector<PodSlot> slots;
  ReclaimOutcome reclaim = ReclaimOutcome::kNotTried;
  std::string behind;                  // kBehindOlderJob: the older job's id

  bool waiting() const { return !was_running && !started && !never; }
};

// Everything one pass works on. Job and project indices are positions in `jobs` / `projects`.
struct PassState {
  PassState(ClusterLimits cluster_limits, GpuCapacity free_capacity)
      : limits(std::move(cluster_limits)), capacity(std::move(free_capacity)) {}

  ClusterLimits limits;
  GpuCapacity capacity;
  std::vector<ProjectState> projects;   // sorted by name
  std::vector<JobState> jobs;           // sorted by (queue_order, id)
  std::vector<int> victims;             // running preemptible jobs, youngest first
  std::vector<int> started;             // jobs started by this pass, in start order
  std::vector<PreemptedJob> preempted;  // in preemption order
};

// Would `job` keep its project within its fair share if it ran?
inline bool within_fair_share(const PassState& s, const JobState& job) {
  const ProjectState& p = s.projects[job.project];
  return p.alloc + job.need <= p.fair;
}

// Starts waiting job `j` on `slots` (already taken from the capacity).
void start(PassState& s, int j, std::vector<PodSlot> slots);

// Tentative eviction / restoration of a running job's GPUs and its project's allocation.
void set_running(PassState& s, JobState& job, bool running);

}  // namespace lane::submit::sched::detail
