#include "submit/scheduler/explain.h"

#include <fmt/format.h>

namespace lane::submit::sched::detail {

static std::string gpus_word(int64_t units) {
  return format_units(units) + (units == kUnitsPerGpu ? " GPU" : " GPUs");
}

std::string capacity_reason(const GpuCapacity& capacity, const PodShape& shape, int pods) {
  const auto [block, block_node] = capacity.largest_free_block();
  const std::string largest_block =
      block == 0 ? "no GPU is completely free"
                 : fmt::format("largest free block: {} on {}", block, capacity.node_name(block_node));
  if (pods > 1) {
    return fmt::format("gang of {} pods × {} must start together, but only {} such pods fit now ({})",
                       pods, gpus_word(shape.units()), capacity.count_fit(shape), largest_block);
  }
  if (shape.whole()) {
    return fmt::format("no node has {} free on one node ({})", gpus_word(shape.units()),
                       largest_block);
  }
  const auto [share, node, gpu] = capacity.largest_free_share();
  const std::string largest_share =
      share == 0 ? "no shared GPU has room"
                 : fmt::format("largest free share: {} on {} GPU {}", format_units(share),
                               capacity.node_name(node), gpu);
  return fmt::format("no GPU has {} of its capacity free ({}; {})", format_units(shape.units_per_gpu),
                     largest_share, largest_block);
}

std::optional<std::string> quota_reason(const JobState& job, const ProjectState& project) {
  if (!quota_blocks(job, project)) return std::nullopt;
  const std::string& name = project.spec.name;
  if (!job.w->is_preemptible())
    return fmt::format("waiting for {}: {} must fit within the quota and project {} "
                       "uses {} of its quota of {}", gpus_word(job.need), job.w->kind_in_quota(), name,
                       format_units(project.alloc), format_units(project.quota));
  return fmt::format("waiting for {}: project {} is at its quota of {} ({} in use) and "
                       "over-quota is disabled", gpus_word(job.need), name,
                       format_units(project.quota), format_units(project.alloc));
}

std::string preemption_reason(const ProjectState& requester, int64_t requester_alloc,
                              const JobState& job, const ProjectState& victim_project,
                              int64_t victim_alloc) {
  return fmt::format("preempted: project {} is below its fair share ({} of {} GPUs) and needs {} "
                     "for job {}; {} is over its fair share ({} of {})",
                     requester.spec.name, format_units(requester_alloc), format_units(requester.fair),
                     gpus_word(job.need), job.w->id, victim_project.spec.name,
                     format_units(victim_alloc), format_units(victim_project.fair));
}

std::vector<std::string> project_explanation(const ProjectState& p, int running, int pending,
                                             double capacity_gpus) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("quota {} GPUs{}, over-quota {}; requests {} GPUs ({} running, {} "
                              "pending jobs)", format_units(p.quota),
                              p.declared ? "" : " (project not declared)",
                              p.spec.over_quota_allowed ? "allowed" : "disabled",
                              format_units(p.requested), running, pending));
  const int64_t guarantee = std::min(p.quota, p.demand);
  const std::string fair = format_units(p.fair);
  if (to_units(p.share.deserved) < guarantee) {
    lines.push_back(fmt::format("fair share {} GPUs: the quotas add up to more than the cluster's {} "
                                "GPUs, so each guarantee is scaled down in proportion to its quota",
                                fair, format_gpus(capacity_gpus)));
  } else if (to_units(p.share.spare) > 0) {
    lines.push_back(fmt::format("fair share {} GPUs = {} guaranteed + {} of the GPUs other projects "
                                "do not need ({})", fair, format_gpus(p.share.deserved),
                                format_gpus(p.share.spare),
                                p.quota > 0 ? "shared in proportion to the quotas"
                                            : "projects without quota share what is left"));
  } else {
    lines.push_back(fmt::format("fair share {} GPUs = min(quota {}, usable demand {})", fair,
                                format_units(p.quota), format_units(p.demand)));
  }
  const char* position = p.alloc < p.fair ? "below" : p.alloc == p.fair ? "at" : "above";
  std::string held = fmt::format("allocated {} GPUs: {} its fair share", format_units(p.alloc), position);
  if (p.alloc > p.quota)
    held += fmt::format("; {} GPUs over quota run preemptible training jobs", format_units(p.alloc - p.quota));
  lines.push_back(held);
  if (p.started > 0 || p.preempted > 0)
    lines.push_back(fmt::format("this pass: {} jobs started, {} preempted", p.started, p.preempted));
  if (pending > 0 && !p.spec.over_quota_allowed && p.alloc >= p.quota)
    lines.push_back("over-quota is disabled: training jobs wait once the quota is in use");
  return lines;
}

}  // namespace lane::submit::sched::detail
