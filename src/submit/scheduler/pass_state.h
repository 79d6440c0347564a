#pragma once
// Internal: the bookkeeping of one scheduling pass, per project and per job.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "submit/scheduler/fair_share.h"
#include "submit/scheduler/gpu_capacity.h"
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

}  // namespace lane::submit::sched::detail
