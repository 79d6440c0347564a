#include "submit/scheduler/preemption.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "submit/scheduler/explain.h"

namespace lane::submit::sched::detail {

std::optional<std::vector<int>> preempt_for(PassState& s, int j) {
  JobState& job = s.jobs[j];
  ProjectState& me = s.projects[job.project];
  int64_t reachable = s.capacity.free_units();
  for (int v : s.victims) {
    const JobState& victim = s.jobs[v];
    const ProjectState& vp = s.projects[victim.project];
    if (victim.running && victim.project != job.project && vp.alloc > vp.fair) reachable += victim.need;
  }
  if (reachable < job.need) return std::nullopt;

  std::map<int, int64_t> alloc_before;  // victim project -> allocation before this reclaim
  std::vector<int> released;
  bool fits = false;
  for (int v : s.victims) {
    JobState& victim = s.jobs[v];
    ProjectState& vp = s.projects[victim.project];
    if (!victim.running || victim.project == job.project || vp.alloc <= vp.fair) continue;
    alloc_before.emplace(victim.project, vp.alloc);
    set_running(s, victim, false);
    released.push_back(v);
    if ((fits = s.capacity.fits(job.shape, job.w->pods))) break;
  }
  if (!fits) {
    for (auto r = released.rbegin(); r != released.rend(); ++r) set_running(s, s.jobs[*r], true);
    return std::nullopt;
  }
  std::vector<int> evicted;
  for (auto r = released.rbegin(); r != released.rend(); ++r) {
    set_running(s, s.jobs[*r], true);
    if (!s.capacity.fits(job.shape, job.w->pods)) {
      set_running(s, s.jobs[*r], false);
      evicted.push_back(*r);
    }
  }
  const int64_t my_alloc = me.alloc;
  std::vector<PodSlot> slots;
  s.capacity.place_all(job.shape, job.w->pods, slots);  // fits: checked just above
  start(s, j, std::move(slots));
  std::sort(evicted.begin(), evicted.end(), [&](int a, int b) {
    return std::tie(s.jobs[b].w->queue_order, s.jobs[b].w->id) < std::tie(s.jobs[a].w->queue_order, s.jobs[a].w->id);
  });
  for (int v : evicted) {
    JobState& victim = s.jobs[v];
    ProjectState& vp = s.projects[victim.project];
    vp.preempted += 1;
    s.preempted.push_back({victim.w->id, preemption_reason(me, my_alloc, job, vp, alloc_before.at(victim.project))});
  }
  return evicted;
}

}  // namespace lane::submit::sched::detail
