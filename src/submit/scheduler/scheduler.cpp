// One scheduling pass, in the order KAI uses (docs/scheduler.md):
//   0. load: sort everything by name / queue order, occupy the running placements;
//   1. fair shares from quotas and demand;
//   2. allocate, within fair share, in deficit order (furthest below its fair share first);
//   3. reclaim: for jobs that keep their project within its fair share, preempt the youngest
//      preemptible jobs of projects above their fair share, only when that makes room;
//   4. allocate the idle rest (over fair share / over quota, where allowed);
//   5. explain: a reason for every waiting job, a report per project.
#include "submit/scheduler/scheduler.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/scheduler/explain.h"
#include "submit/scheduler/fair_share.h"
#include "submit/scheduler/gpu_capacity.h"
#include "submit/scheduler/never_fits.h"
#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched {
namespace {

using namespace detail;

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

// Projects ordered by (alloc − fair share): the one furthest below its fair share first; ties by
// name (= index). Keys are refreshed whenever a project's allocation changes.
class DeficitOrder {
 public:
  explicit DeficitOrder(const std::vector<ProjectState>& projects)
      : projects_(projects), in_(projects.size(), false) {}
  void add(int p) {
    if (in_[p]) return;
    in_[p] = true;
    order_.emplace(key(p), p);
  }
  void refresh(int p) {
    if (!in_[p]) return;
    order_.erase(std::find_if(order_.begin(), order_.end(), [&](auto& e) { return e.second == p; }));
    order_.emplace(key(p), p);
  }
  bool empty() const { return order_.empty(); }
  int pop() {
    const int p = order_.begin()->second;
    order_.erase(order_.begin());
    in_[p] = false;
    return p;
  }

 private:
  int64_t key(int p) const { return projects_[p].alloc - projects_[p].fair; }
  const std::vector<ProjectState>& projects_;
  std::vector<bool> in_;
  std::set<std::pair<int64_t, int>> order_;
};

class Pass {
 public:
  explicit Pass(const ClusterState& state)
      : limits_(state.nodes), capacity_(sorted_nodes(state.nodes)) {
    load_projects(state);
    load_jobs(state);
    compute_fair_shares();
  }

  Decision run() {
    allocate(/*within_fair_share=*/true);
    reclaim();
    allocate(/*within_fair_share=*/false);
    return explain();
  }

 private:
  void load_projects(const ClusterState& state) {
    std::vector<Project> specs = state.projects;
    std::sort(specs.begin(), specs.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const Project& p : specs) {
      if (!projects_.empty() && projects_.back().spec.name == p.name)
        fail(fmt::format("project {} is listed twice", p.name));
      if (!(p.gpu_quota >= 0 && p.gpu_quota <= 1e6))
        fail(fmt::format("project {} has GPU quota {}; use a number from 0 to 1000000", p.name, p.gpu_quota));
      add_project(p, true);
    }
    // Projects only named by workloads: quota 0, over-quota allowed.
    std::set<std::string> undeclared;
    for (const Workload& w : state.workloads)
      if (!index_.count(w.project)) undeclared.insert(w.project);
    for (const std::string& name : undeclared) add_project(Project{name, 0, true}, false);
    std::sort(projects_.begin(), projects_.end(), [](auto& a, auto& b) { return a.spec.name < b.spec.name; });
    for (std::size_t i = 0; i < projects_.size(); ++i) index_[projects_[i].spec.name] = int(i);
  }

  void add_project(const Project& spec, bool declared) {
    ProjectState p;
    p.spec = spec;
    p.declared = declared;
    p.quota = to_units(spec.gpu_quota);
    index_[spec.name] = int(projects_.size());
    projects_.push_back(std::move(p));
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
    jobs_.reserve(order.size());
    for (const Workload* w : order) {
      JobState job;
      job.w = w;
      job.project = index_.at(w->project);
      ProjectState& project = projects_[job.project];
      if (const auto shape = pod_shape(w->gpu_per_pod); shape && w->pods >= 1) {
        job.shape = *shape;
        job.need = shape->units() * w->pods;
      }
      job.was_running = job.running = w->running;
      if (w->running)
        occupy_running(job);
      else  // a pending job that can never run stays pending with the reason, unscheduled
        job.never = never_fits(limits_, project.declared ? &project.spec : nullptr, *w);
      project.requested += job.need;
      if (job.running) project.alloc += job.need;
      jobs_.push_back(std::move(job));
    }
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const JobState& job = jobs_[j];
      if (job.waiting()) projects_[job.project].pending.push_back(int(j));
      if (job.was_running && job.w->type != JobType::kInteractive && job.need > 0)
        victims_.push_back(int(j));
    }
    // Youngest first: highest queue order, then the larger id.
    std::reverse(victims_.begin(), victims_.end());
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
      if (auto why = capacity_.check(slot)) fail(fmt::format("running workload {}: {}", w.id, *why));
      capacity_.occupy(slot);
      job.slots.push_back(std::move(slot));
    }
  }

  void compute_fair_shares() {
    std::vector<FairShareInput> inputs;
    std::vector<int64_t> train(projects_.size(), 0), total(projects_.size(), 0);
    for (const JobState& job : jobs_) {
      if (job.never) continue;
      total[job.project] += job.need;
      if (job.w->type != JobType::kInteractive) train[job.project] += job.need;
    }
    for (std::size_t i = 0; i < projects_.size(); ++i) {
      ProjectState& p = projects_[i];
      // Interactive jobs never go over quota, and nothing does when over-quota is disabled.
      const int64_t ceiling = p.quota + (p.spec.over_quota_allowed ? train[i] : 0);
      p.demand = std::min(total[i], ceiling);
      inputs.push_back({to_gpus(p.quota), to_gpus(p.demand), p.spec.over_quota_allowed});
    }
    const auto shares = fair_shares(double(limits_.total_gpus), inputs);
    for (std::size_t i = 0; i < projects_.size(); ++i) {
      projects_[i].share = shares[i];
      projects_[i].fair = to_units(shares[i].total());
    }
  }

  bool within_fair_share(const JobState& job) const {
    const ProjectState& p = projects_[job.project];
    return p.alloc + job.need <= p.fair;
  }

  void start(int j, std::vector<PodSlot> slots) {
    JobState& job = jobs_[j];
    job.started = job.running = true;
    job.slots = std::move(slots);
    projects_[job.project].alloc += job.need;
    projects_[job.project].started += 1;
    started_.push_back(j);
  }

  // Phases 2 and 4: serve projects in deficit order, each in FIFO order; a job that does not
  // fit is skipped (best-effort FIFO) so that smaller jobs behind it can use the room.
  void allocate(bool within_fair_share_only) {
    DeficitOrder order(projects_);
    std::vector<std::size_t> cursor(projects_.size(), 0);
    for (std::size_t p = 0; p < projects_.size(); ++p)
      if (!projects_[p].pending.empty()) order.add(int(p));
    while (!order.empty()) {
      const int p = order.pop();
      const std::vector<int>& queue = projects_[p].pending;
      std::size_t& next = cursor[p];
      while (next < queue.size() && !jobs_[queue[next]].waiting()) ++next;
      if (next == queue.size()) continue;
      const int j = queue[next++];
      JobState& job = jobs_[j];
      const bool admitted = !quota_blocks(job, projects_[p]) &&
                            (!within_fair_share_only || within_fair_share(job));
      std::vector<PodSlot> slots;
      if (admitted && capacity_.place_all(job.shape, job.w->pods, slots)) start(j, std::move(slots));
      if (next < queue.size()) order.add(p);
    }
  }

  // Phase 3. A project reclaims for its jobs oldest first; once one cannot be served, its younger
  // jobs do not preempt either (no leapfrogging through preemption).
  void reclaim() {
    DeficitOrder order(projects_);
    order_ = &order;
    std::vector<std::size_t> cursor(projects_.size(), 0);
    for (std::size_t p = 0; p < projects_.size(); ++p)
      if (!projects_[p].pending.empty()) order.add(int(p));
    while (!order.empty()) {
      const int p = order.pop();
      const std::vector<int>& queue = projects_[p].pending;
      std::size_t& next = cursor[p];
      while (next < queue.size() && !jobs_[queue[next]].waiting()) ++next;
      if (next == queue.size()) continue;
      const int j = queue[next++];
      JobState& job = jobs_[j];
      bool keep_going = true;
      if (!quota_blocks(job, projects_[p]) && within_fair_share(job) && job.need > 0) {
        std::vector<PodSlot> slots;
        if (capacity_.place_all(job.shape, job.w->pods, slots)) {
          start(j, std::move(slots));
        } else if (!preempt_for(j)) {
          job.reclaim = ReclaimOutcome::kFailed;
          for (std::size_t k = next; k < queue.size(); ++k) {
            jobs_[queue[k]].reclaim = ReclaimOutcome::kBehindOlderJob;
            jobs_[queue[k]].behind = job.w->id;
          }
          keep_going = false;
        }
      }
      if (keep_going && next < queue.size()) order.add(p);
    }
    order_ = nullptr;
  }

  // Evict the youngest preemptible jobs of projects above their fair share, one at a time, until
  // job j fits; then put back every victim it fits without (oldest first). Commits only on success.
  bool preempt_for(int j) {
    JobState& job = jobs_[j];
    ProjectState& me = projects_[job.project];
    int64_t reachable = capacity_.free_units();
    for (int v : victims_) {
      const JobState& victim = jobs_[v];
      const ProjectState& vp = projects_[victim.project];
      if (victim.running && victim.project != job.project && vp.alloc > vp.fair) reachable += victim.need;
    }
    if (reachable < job.need) return false;

    std::map<int, int64_t> alloc_before;  // victim project -> allocation before this reclaim
    std::vector<int> released;
    bool fits = false;
    for (int v : victims_) {
      JobState& victim = jobs_[v];
      ProjectState& vp = projects_[victim.project];
      if (!victim.running || victim.project == job.project || vp.alloc <= vp.fair) continue;
      alloc_before.emplace(victim.project, vp.alloc);
      set_running(victim, false);
      released.push_back(v);
      if ((fits = capacity_.fits(job.shape, job.w->pods))) break;
    }
    if (!fits) {
      for (auto r = released.rbegin(); r != released.rend(); ++r) set_running(jobs_[*r], true);
      return false;
    }
    std::vector<int> evicted;
    for (auto r = released.rbegin(); r != released.rend(); ++r) {
      set_running(jobs_[*r], true);
      if (!capacity_.fits(job.shape, job.w->pods)) {
        set_running(jobs_[*r], false);
        evicted.push_back(*r);
      }
    }
    const int64_t my_alloc = me.alloc;
    std::vector<PodSlot> slots;
    capacity_.place_all(job.shape, job.w->pods, slots);  // fits: checked just above
    start(j, std::move(slots));
    std::sort(evicted.begin(), evicted.end(), [&](int a, int b) {
      return std::tie(jobs_[b].w->queue_order, jobs_[b].w->id) < std::tie(jobs_[a].w->queue_order, jobs_[a].w->id);
    });
    for (int v : evicted) {
      JobState& victim = jobs_[v];
      ProjectState& vp = projects_[victim.project];
      vp.preempted += 1;
      preempted_.push_back({victim.w->id, preemption_reason(me, my_alloc, job, vp, alloc_before.at(victim.project))});
      order_->refresh(victim.project);
    }
    return true;
  }

  // Tentative eviction / restoration of a running job's GPUs and its project's allocation.
  void set_running(JobState& job, bool running) {
    if (job.running == running) return;
    for (const PodSlot& slot : job.slots) running ? capacity_.occupy(slot) : capacity_.release(slot);
    projects_[job.project].alloc += running ? job.need : -job.need;
    job.running = running;
  }

  // Why a job still waits, against the final capacity. Computed once per (project, type, shape,
  // pods, reclaim outcome): everything the text depends on (10,000 waiting jobs share a few dozen).
  const std::string& pending_reason(const JobState& job, std::map<std::vector<int64_t>, std::string>& cache) {
    if (job.never) return *job.never;
    const std::vector<int64_t> key = {job.project, int64_t(job.w->type), job.shape.gpus,
                                      job.shape.units_per_gpu, job.w->pods, int64_t(job.reclaim)};
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, pending_reason_text(job)).first;
    return it->second;
  }

  std::string pending_reason_text(const JobState& job) const {
    const ProjectState& p = projects_[job.project];
    if (auto why = quota_reason(job, p)) return *why;
    std::string reason;
    if (job.shape.gpus > 0 && capacity_.count_fit(job.shape) < job.w->pods) {
      reason = capacity_reason(capacity_, job.shape, job.w->pods);
    } else {
      reason = "waiting for the next scheduling pass";  // room appeared after its turn in this pass
    }
    if (!within_fair_share(job)) {
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

  Decision explain() {
    Decision d;
    for (int j : started_) {
      StartedJob s;
      s.id = jobs_[j].w->id;
      for (const PodSlot& slot : jobs_[j].slots) {
        PodPlacement pod;
        pod.node = slot.node >= 0 ? capacity_.node_name(slot.node) : "";
        pod.gpu_indices = slot.gpus;
        pod.share_per_gpu = to_gpus(slot.units_per_gpu);
        s.placement.push_back(std::move(pod));
      }
      d.start.push_back(std::move(s));
    }
    d.preempt = preempted_;
    std::map<std::vector<int64_t>, std::string> cache;
    std::vector<int> running(projects_.size(), 0), pending(projects_.size(), 0);
    std::vector<const JobState*> waiting;
    for (const JobState& job : jobs_) {
      (job.running ? running : pending)[job.project] += 1;
      if (!job.running && !job.was_running) waiting.push_back(&job);
    }
    // Insert in key order with an end hint: linear instead of a tree search per job.
    std::sort(waiting.begin(), waiting.end(), [](auto* a, auto* b) { return a->w->id < b->w->id; });
    for (const JobState* job : waiting)
      d.pending_reason.emplace_hint(d.pending_reason.end(), job->w->id, pending_reason(*job, cache));
    for (std::size_t i = 0; i < projects_.size(); ++i) {
      const ProjectState& p = projects_[i];
      ProjectReport r;
      r.name = p.spec.name;
      r.quota = to_gpus(p.quota);
      r.fair_share = to_gpus(p.fair);
      r.allocated = to_gpus(p.alloc);
      r.requested = to_gpus(p.requested);
      r.running = running[i];
      r.pending = pending[i];
      r.over_quota = p.alloc > p.quota;
      r.explanation = project_explanation(p, running[i], pending[i], double(limits_.total_gpus));
      d.projects.push_back(std::move(r));
    }
    return d;
  }

  int find_node(const std::string& name) {
    if (node_index_.empty())
      for (int n = 0; n < capacity_.node_count(); ++n) node_index_[capacity_.node_name(n)] = n;
    auto it = node_index_.find(name);
    return it == node_index_.end() ? -1 : it->second;
  }

  ClusterLimits limits_;
  GpuCapacity capacity_;
  std::vector<ProjectState> projects_;
  std::unordered_map<std::string, int> index_;  // lookup only; never iterated
  std::map<std::string, int> node_index_;
  std::vector<JobState> jobs_;       // sorted by (queue_order, id)
  std::vector<int> victims_;         // running preemptible jobs, youngest first
  std::vector<int> started_;
  std::vector<PreemptedJob> preempted_;
  DeficitOrder* order_ = nullptr;    // the reclaim phase's order, refreshed when victims lose GPUs
};

}  // namespace

Decision schedule(const ClusterState& state) { return Pass(state).run(); }

}  // namespace lane::submit::sched
