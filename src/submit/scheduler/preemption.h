#pragma once
// Internal: making room for one job by preempting others (the reclaim phase's step).
#include <optional>
#include <vector>

#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

// Evict the youngest preemptible jobs of projects above their fair share, one at a time, until
// job j fits; then put back every victim it fits without (oldest first). Commits only on
// success: starts j, records the preempted jobs in s.preempted and returns them (job indices);
// nullopt, with nothing changed, when preemption cannot make room.
std::optional<std::vector<int>> preempt_for(PassState& s, int j);

}  // namespace lane::submit::sched::detail
