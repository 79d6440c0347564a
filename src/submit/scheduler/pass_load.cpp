#include "submit/scheduler/pass_load.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/validate.h"

namespace lane::submit::sched::detail {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw lane::Error("scheduler: invalid cluster state: " + message);
}

std::vector<std::pair<std::string, int>> sorted_nodes(const std::vector<Node>& nodes) {
  std::vector<std::pair<std::string, int>> out;
  for (const Node& n : nodes) {
    if (n.gpus < 0) fail(fmt::format("node {} has {} GPUs; use 0 or more", n.name, n.gpus));
    out.emplace_back(n.name, n.gpus);
  }
  std::sort(out.begin(), out.end());
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].first == out[i - 1].first) fail(fmt::format("node {} is listed twice", out[i].first));
  return out;
}

class Loader {
 public:
  explicit Loader(PassState& s) : s_(s) {}

  void load_projects(const ClusterState& state) {
    std::vector<Project> specs = state.projects;
    std::sort(specs.begin(), specs.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const Project& p : specs) {
      if (!s_.projects.empty() && s_.projects.back().spec.name == p.name)
        fail(fmt::format("project {} is listed twice", p.name));
      if (!(p.gpu_quota >= 0 && p.gpu_quota <= kMaxGpuQuota))
        fail(fmt::format("project {} has GPU quota {}; use a number from 0 to {:.0f}", p.name, p.gpu_quota, kMaxGpuQuota));
      add_project(p, true);
    }
    // Projects only named by workloads: quota 0, over-quota allowed.
    std::set<std::string> undeclared;
    for (const Workload& w : state.workloads)
      if (!index_.count(w.project)) undeclared.insert(w.project);
    for (const std::string& name : undeclared) add_project(Project{name, 0, true}, false);
    std::sort(s_.projects.begin(), s_.projects.end(), [](auto& a, auto& b) { return a.spec.name < b.spec.name; });
    for (std::size_t i = 0; i < s_.projects.size(); ++i) index_[s_.projects[i].spec.name] = int(i);
  }

  void load_jobs(const ClusterState& state) {
    std::vector<const Workload*> order;
    for (const Workload& w : state.workloads) order.push_back(&w);
    std::sort(order.begin(), order.end(), [](const Workload* a, const Workload* b) {
      return std::tie(a->queue_order, a->id) < std::tie(b->queue_order, b->id);
    });
    std::vector<std::string_view> ids;
    for (const Workload* w : order) ids.push_back(w->id);
    std::sort(ids.begin(), ids.end());
    if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end())
      fail(fmt::format("workload {} is listed twice", *dup));
    std::vector<JobState>& jobs = s_.jobs;
    jobs.reserve(order.size());
    for (const Workload* w : order) {
      JobState job;
      job.w = w;
      job.project = index_.at(w->project);
      ProjectState& project = s_.projects[job.project];
      if (const auto shape = pod_shape(w->gpu_per_pod); shape && w->pods >= 1) {
        job.shape = *shape;
        job.need = shape->units() * w->pods;
      }
      job.was_running = job.running = w->running;
      if (w->running)
        occupy_running(job);
      else  // a pending job that can never run stays pending with the reason, unscheduled
        job.never = never_fits(s_.limits, project.declared ? &project.spec : nullptr, *w);
      project.requested += job.need;
      if (job.running) project.alloc += job.need;
      jobs.push_back(std::move(job));
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const JobState& job = jobs[j];
      if (job.waiting()) s_.projects[job.project].pending.push_back(int(j));
      if (job.was_running && job.w->is_preemptible() && job.need > 0)
        s_.victims.push_back(int(j));
    }
    // Youngest first: highest queue order, then the larger id.
    std::reverse(s_.victims.begin(), s_.victims.end());
  }

 private:
  void add_project(const Project& spec, bool declared) {
    ProjectState p;
    p.spec = spec;
    p.declared = declared;
    p.quota = to_units(spec.gpu_quota);
    index_[spec.name] = int(s_.projects.size());
    s_.projects.push_back(std::move(p));
  }

  void occupy_running(JobState& job) {
    const Workload& w = *job.w;
    if (!pod_shape(w.gpu_per_pod) || w.pods < 1)
      fail(fmt::format("running workload {} requests {} GPUs × {} pods", w.id, w.gpu_per_pod, w.pods));
    if (job.need == 0) return;  // CPU only: holds no GPU
    if (int(w.placement.size()) != w.pods)
      fail(fmt::format("running workload {} has {} pods but {} placements", w.id, w.pods, w.placement.size()));
    for (const PodPlacement& pod : w.placement) {
      PodSlot slot;
      slot.node = find_node(pod.node);
      if (slot.node < 0) fail(fmt::format("running workload {} is placed on unknown node '{}'", w.id, pod.node));
      slot.gpus = pod.gpu_indices;
      slot.units_per_gpu = int(to_units(pod.share_per_gpu));
      if (int(slot.gpus.size()) != job.shape.gpus || slot.units_per_gpu != job.shape.units_per_gpu)
        fail(fmt::format("running workload {} requests {} GPUs per pod but is placed on {} GPU(s) × {}",
                         w.id, w.gpu_per_pod, slot.gpus.size(), pod.share_per_gpu));
      if (auto why = s_.capacity.check(slot)) fail(fmt::format("running workload {}: {}", w.id, *why));
      s_.capacity.occupy(slot);
      job.slots.push_back(std::move(slot));
    }
  }

  int find_node(const std::string& name) {
    if (node_index_.empty())
      for (int n = 0; n < s_.capacity.node_count(); ++n) node_index_[s_.capacity.node_name(n)] = n;
    auto it = node_index_.find(name);
    return it == node_index_.end() ? -1 : it->second;
  }

  PassState& s_;
  std::unordered_map<std::string, int> index_;  // project name -> index; lookup only, never iterated
  std::map<std::string, int> node_index_;
};

void compute_fair_shares(PassState& s) {
  std::vector<FairShareInput> inputs;
  std::vector<int64_t> train(s.projects.size(), 0), total(s.projects.size(), 0);
  for (const JobState& job : s.jobs) {
    if (job.never) continue;
    total[job.project] += job.need;
    if (job.w->is_preemptible()) train[job.project] += job.need;
  }
  for (std::size_t i = 0; i < s.projects.size(); ++i) {
    ProjectState& p = s.projects[i];
    // Non-preemptible (e.g. interactive) jobs never go over quota, and nothing does when over-quota is disabled.
    const int64_t ceiling = p.quota + (p.spec.over_quota_allowed ? train[i] : 0);
    p.demand = std::min(total[i], ceiling);
    inputs.push_back({to_gpus(p.quota), to_gpus(p.demand), p.spec.over_quota_allowed});
  }
  const auto shares = fair_shares(double(s.limits.total_gpus), inputs);
  for (std::size_t i = 0; i < s.projects.size(); ++i) {
    s.projects[i].share = shares[i];
    s.projects[i].fair = to_units(shares[i].total());
  }
}

}  // namespace

PassState load_pass(const ClusterState& state) {
  PassState s(ClusterLimits(state.nodes), GpuCapacity(sorted_nodes(state.nodes)));
  Loader loader(s);
  loader.load_projects(state);
  loader.load_jobs(state);
  compute_fair_shares(s);
  return s;
}

}  // namespace lane::submit::sched::detail
