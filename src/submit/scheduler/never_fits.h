#pragma once
// Internal: the "could this job ever run here?" check, with the cluster's limits computed once
// so that schedule() can ask it for 10,000 jobs cheaply.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "submit/scheduler/scheduler.h"

namespace lane::submit::sched::detail {

struct ClusterLimits {
  explicit ClusterLimits(const std::vector<Node>& nodes);
  int64_t total_gpus = 0;
  int largest_node = 0;
  std::string largest_node_name;
  std::vector<int> node_gpus;
};

// What would let a job that never fits run: more GPUs in the cluster (or a smaller request), or
// more quota for its project (or a smaller request, or over-quota for a preemptible job).
enum class Remedy { kCluster, kQuota, kOverQuota };

// `project` is null when the job names a project the state does not have (treated as quota 0).
// `remedy`, when given, is set along with the reason.
std::optional<std::string> never_fits(const ClusterLimits& limits, const Project* project,
                                      const Workload& job, Remedy* remedy = nullptr);

}  // namespace lane::submit::sched::detail
