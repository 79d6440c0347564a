#pragma once
// Internal: phases 0 and 1 of a pass: check and load the cluster state (sorted by name and queue
// order, running placements occupied), then the fair shares from quotas and demand.
#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

// Throws lane::Error naming the problem when the state is inconsistent (see schedule()).
PassState load_pass(const ClusterState& state);

}  // namespace lane::submit::sched::detail
