// One scheduling pass, in the order KAI uses (docs/scheduler.md):
//   0. load: sort everything by name / queue order, occupy the running placements;
//   1. fair shares from quotas and demand;                                       (pass_load)
//   2. allocate, within fair share, in deficit order (furthest below its fair share first);
//   3. reclaim: for jobs that keep their project within its fair share, preempt the youngest
//      preemptible jobs of projects above their fair share, only when that makes room;
//   4. allocate the idle rest (over fair share / over quota, where allowed);    (allocation,
//                                                        deficit_order, preemption)
//   5. explain: a reason for every waiting job, a report per project.            (decision)
#include "submit/scheduler/scheduler.h"

#include "submit/scheduler/allocation.h"
#include "submit/scheduler/decision.h"
#include "submit/scheduler/pass_load.h"

namespace lane::submit::sched {

Decision schedule(const ClusterState& state) {
  detail::PassState pass = detail::load_pass(state);
  detail::allocate(pass, /*within_fair_share_only=*/true);
  detail::reclaim(pass);
  detail::allocate(pass, /*within_fair_share_only=*/false);
  return detail::make_decision(pass);
}

}  // namespace lane::submit::sched
