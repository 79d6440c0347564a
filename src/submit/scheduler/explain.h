#pragma once
// Internal: the human-readable reasons behind a Decision (`lanectl describe`, `project list`).
#include <string>
#include <vector>

#include "submit/scheduler/gpu_capacity.h"
#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

// Why `pods` pods of `shape` cannot be placed in the free capacity right now.
std::string capacity_reason(const GpuCapacity& capacity, const PodShape& shape, int pods);

// Does a quota rule keep `job` waiting (non-preemptible beyond quota, over-quota disabled)?
// Inline: the allocation loops ask it for every waiting job.
inline bool quota_blocks(const JobState& job, const ProjectState& project) {
  if (job.need == 0 || project.alloc + job.need <= project.quota) return false;
  return !job.w->is_preemptible() || !project.spec.over_quota_allowed;
}
// The text of that rule, if it applies.
std::optional<std::string> quota_reason(const JobState& job, const ProjectState& project);

std::string preemption_reason(const ProjectState& requester, int64_t requester_alloc,
                              const JobState& job, const ProjectState& victim_project,
                              int64_t victim_alloc);

std::vector<std::string> project_explanation(const ProjectState& project, int running, int pending,
                                             double capacity_gpus);

}  // namespace lane::submit::sched::detail
