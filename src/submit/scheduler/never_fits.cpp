#include "submit/scheduler/never_fits.h"

#include <fmt/format.h>

#include "submit/scheduler/gpu_units.h"

namespace lane::submit::sched {
namespace detail {

ClusterLimits::ClusterLimits(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    total_gpus += n.gpus;
    node_gpus.push_back(n.gpus);
    // The largest node; among equals, the first by name (deterministic whatever the input order).
    if (n.gpus > largest_node ||
        (n.gpus == largest_node && (largest_node_name.empty() || n.name < largest_node_name))) {
      largest_node = n.gpus;
      largest_node_name = n.name;
    }
  }
}

static std::string plural(int64_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::optional<std::string> never_fits(const ClusterLimits& limits, const Project* project,
                                      const Workload& job, Remedy* remedy) {
  Remedy ignored;
  Remedy& why = remedy ? *remedy : ignored;
  why = Remedy::kCluster;
  const auto shape = pod_shape(job.gpu_per_pod);
  if (!shape)
    return fmt::format("requests {} GPUs per pod: ask for a fraction below 1 (e.g. 0.5) or a whole "
                       "number of GPUs", job.gpu_per_pod);
  if (job.pods < 1) return fmt::format("has {} pods: a job needs at least 1", job.pods);
  if (shape->gpus == 0) return std::nullopt;  // CPU only: always runs

  const int64_t need = shape->units() * job.pods;
  if (need > limits.total_gpus * kUnitsPerGpu)
    return fmt::format("requests {} GPUs but the cluster has {} in total", format_units(need), limits.total_gpus);
  if (shape->whole() && shape->gpus > limits.largest_node)
    return fmt::format("each pod needs {} on one node, but the largest node ({}) has {}",
                       plural(shape->gpus, "GPU"), limits.largest_node_name, limits.largest_node);
  if (job.pods > 1) {
    int64_t most = 0;  // pods of this shape an empty cluster holds
    if (shape->whole()) {
      for (int g : limits.node_gpus) most += g / shape->gpus;
    } else {
      most = limits.total_gpus * (kUnitsPerGpu / shape->units_per_gpu);
    }
    if (most < job.pods)
      return fmt::format("needs {} pods × {} GPUs together, but at most {} such pods fit on the "
                         "cluster's nodes", job.pods, format_units(shape->units_per_gpu * shape->gpus), most);
  }
  const double quota = project ? project->gpu_quota : 0.0;
  const std::string name = project ? project->name : job.project;
  if (need > to_units(quota)) {
    why = Remedy::kQuota;
    if (!job.is_preemptible())
      return fmt::format("{} must fit within the project's quota: requests {} GPUs "
                         "but project {} has a quota of {}", job.kind_in_quota(), format_units(need), name,
                         format_gpus(quota));
    why = Remedy::kOverQuota;
    if (project && !project->over_quota_allowed)
      return fmt::format("requests {} GPUs but project {} has a quota of {} and over-quota is "
                         "disabled", format_units(need), name, format_gpus(quota));
  }
  return std::nullopt;
}

}  // namespace detail

namespace {

const Project* find_project(const ClusterState& state, const std::string& name) {
  for (const Project& p : state.projects)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

std::optional<std::string> never_fits(const ClusterState& state, const Workload& job) {
  return detail::never_fits(detail::ClusterLimits(state.nodes), find_project(state, job.project), job);
}

std::optional<std::string> never_fits_with_fix(const ClusterState& state, const Workload& job) {
  using detail::Remedy, detail::format_gpus, detail::format_units, detail::pod_shape;
  const Project* project = find_project(state, job.project);
  Remedy remedy = Remedy::kCluster;
  auto why = detail::never_fits(detail::ClusterLimits(state.nodes), project, job, &remedy);
  if (!why) return why;
  if (remedy == Remedy::kCluster)
    return *why + "; declare the cluster's GPUs with `lanectl cluster set-nodes NAME=GPUS...` or request fewer GPUs";
  const std::string need = format_units(pod_shape(job.gpu_per_pod)->units() * job.pods);  // a valid shape by now
  const std::string quota = format_gpus(project ? project->gpu_quota : 0.0);
  const std::string raise = fmt::format("`lanectl project set {} --gpu-quota {}`", job.project, need);
  if (remedy == Remedy::kQuota)
    return *why + fmt::format("; request at most {} GPUs, or raise the project's quota with {}", quota, raise);
  return *why + fmt::format("; request at most {} GPUs, raise the project's quota with {}, or enable over-quota "
                            "(idle GPUs beyond the quota, preemptible while used) with `lanectl project set {} "
                            "--gpu-quota {} --over-quota`",
                            quota, raise, job.project, quota);
}

}  // namespace lane::submit::sched
