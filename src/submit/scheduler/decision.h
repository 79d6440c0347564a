#pragma once
// Internal: phase 5 of a pass: the Decision from the final state, with a reason for every
// waiting job and a report per project.
#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

Decision make_decision(const PassState& s);

}  // namespace lane::submit::sched::detail
