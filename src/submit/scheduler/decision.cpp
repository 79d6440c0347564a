#include "submit/scheduler/decision.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "submit/scheduler/explain.h"

namespace lane::submit::sched::detail {
namespace {

std::string pending_reason_text(const PassState& s, const JobState& job) {
  const ProjectState& p = s.projects[job.project];
  if (auto why = quota_reason(job, p)) return *why;
  std::string reason;
  if (job.shape.gpus > 0 && s.capacity.count_fit(job.shape) < job.w->pods) {
    reason = capacity_reason(s.capacity, job.shape, job.w->pods);
  } else {
    reason = "waiting for the next scheduling pass";  // room appeared after its turn in this pass
  }
  if (!within_fair_share(s, job)) {
    reason += fmt::format("; project {} would exceed its fair share ({} + {} > {} GPUs), so no "
                          "running jobs are preempted for it", p.spec.name, format_units(p.alloc),
                          format_units(job.need), format_units(p.fair));
  } else if (job.reclaim == ReclaimOutcome::kFailed) {
    reason += "; preempting the training jobs of projects above their fair share would not free "
              "enough room";
  } else if (job.reclaim == ReclaimOutcome::kBehindOlderJob) {
    reason += fmt::format("; it waits behind {}, the older job of its project", job.behind);
  }
  return reason;
}

// Why a job still waits, against the final capacity. Computed once per (project, type, shape,
// pods, reclaim outcome): everything the text depends on (10,000 waiting jobs share a few dozen).
class PendingReasons {
 public:
  explicit PendingReasons(const PassState& s) : s_(s) {}
  const std::string& operator()(const JobState& job) {
    if (job.never) return *job.never;
    const std::vector<int64_t> key = {job.project, int64_t(job.w->type), job.shape.gpus,
                                      job.shape.units_per_gpu, job.w->pods, int64_t(job.reclaim)};
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, pending_reason_text(s_, job)).first;
    return it->second;
  }

 private:
  const PassState& s_;
  std::map<std::vector<int64_t>, std::string> cache_;
};

}  // namespace

Decision make_decision(const PassState& s) {
  Decision d;
  for (int j : s.started) {
    StartedJob started;
    started.id = s.jobs[j].w->id;
    for (const PodSlot& slot : s.jobs[j].slots) {
      PodPlacement pod;
      pod.node = slot.node >= 0 ? s.capacity.node_name(slot.node) : "";
      pod.gpu_indices = slot.gpus;
      pod.share_per_gpu = to_gpus(slot.units_per_gpu);
      started.placement.push_back(std::move(pod));
    }
    d.start.push_back(std::move(started));
  }
  d.preempt = s.preempted;
  std::vector<int> running(s.projects.size(), 0), pending(s.projects.size(), 0);
  std::vector<const JobState*> waiting;
  for (const JobState& job : s.jobs) {
    (job.running ? running : pending)[job.project] += 1;
    if (!job.running && !job.was_running) waiting.push_back(&job);
  }
  // Insert in key order with an end hint: linear instead of a tree search per job.
  std::sort(waiting.begin(), waiting.end(), [](auto* a, auto* b) { return a->w->id < b->w->id; });
  PendingReasons reason_of(s);
  for (const JobState* job : waiting)
    d.pending_reason.emplace_hint(d.pending_reason.end(), job->w->id, reason_of(*job));
  for (std::size_t i = 0; i < s.projects.size(); ++i) {
    const ProjectState& p = s.projects[i];
    ProjectReport r;
    r.name = p.spec.name;
    r.quota = to_gpus(p.quota);
    r.fair_share = to_gpus(p.fair);
    r.allocated = to_gpus(p.alloc);
    r.requested = to_gpus(p.requested);
    r.running = running[i];
    r.pending = pending[i];
    r.over_quota = p.alloc > p.quota;
    r.explanation = project_explanation(p, running[i], pending[i], double(s.limits.total_gpus));
    d.projects.push_back(std::move(r));
  }
  return d;
}

}  // namespace lane::submit::sched::detail
