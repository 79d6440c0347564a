#pragma once
// Internal: phases 2 to 4 of a pass, which start jobs (and preempt for them) in deficit order.
#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

// Phases 2 and 4: serve projects in deficit order, each in FIFO order; a job that does not fit
// is skipped (best-effort FIFO) so that smaller jobs behind it can use the room. Phase 2 admits
// only jobs that keep their project within its fair share.
void allocate(PassState& s, bool within_fair_share_only);

// Phase 3: for jobs that keep their project within its fair share, preempt the youngest
// preemptible jobs of projects above their fair share, only when that makes room. A project
// reclaims for its jobs oldest first; once one cannot be served, its younger jobs do not
// preempt either (no leapfrogging through preemption).
void reclaim(PassState& s);

}  // namespace lane::submit::sched::detail
