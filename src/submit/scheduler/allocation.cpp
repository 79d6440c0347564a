#include "submit/scheduler/allocation.h"

#include "submit/scheduler/deficit_order.h"
#include "submit/scheduler/explain.h"
#include "submit/scheduler/preemption.h"

namespace lane::submit::sched::detail {

void allocate(PassState& s, bool within_fair_share_only) {
  DeficitTurns turns(s);
  while (const auto turn = turns.next()) {
    JobState& job = s.jobs[turn->job];
    const bool admitted = !quota_blocks(job, s.projects[turn->project]) &&
                          (!within_fair_share_only || within_fair_share(s, job));
    std::vector<PodSlot> slots;
    if (admitted && s.capacity.place_all(job.shape, job.w->pods, slots)) start(s, turn->job, std::move(slots));
  }
}

void reclaim(PassState& s) {
  DeficitTurns turns(s);
  while (const auto turn = turns.next()) {
    JobState& job = s.jobs[turn->job];
    if (quota_blocks(job, s.projects[turn->project]) || !within_fair_share(s, job) || job.need == 0) continue;
    std::vector<PodSlot> slots;
    if (s.capacity.place_all(job.shape, job.w->pods, slots)) {
      start(s, turn->job, std::move(slots));
    } else if (const auto evicted = preempt_for(s, turn->job)) {
      for (int v : *evicted) turns.refresh(s.jobs[v].project);  // their projects moved down the order
    } else {
      job.reclaim = ReclaimOutcome::kFailed;
      for (int younger : turns.stop()) {
        s.jobs[younger].reclaim = ReclaimOutcome::kBehindOlderJob;
        s.jobs[younger].behind = job.w->id;
      }
    }
  }
}

}  // namespace lane::submit::sched::detail
