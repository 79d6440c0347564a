// Property tests: many random clusters (fixed seeds), each driven through several scheduling
// passes with submissions and completions in between; after every pass the decision is checked
// against invariants computed independently of the scheduler's own bookkeeping.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "scheduler/scheduler_test_util.h"

using namespace lane::submit;
using namespace lane::submit::sched;
using namespace lane::submit::sched::test;

namespace {

constexpr double kEps = 1e-6;

// Small deterministic helpers (std distributions differ between standard libraries).
struct Rng {
  std::mt19937_64 engine;
  explicit Rng(uint64_t seed) : engine(seed) {}
  int below(int n) { return int(engine() % uint64_t(n)); }
  bool chance(int percent) { return below(100) < percent; }
};

ClusterState random_cluster(Rng& rng) {
  ClusterState s;
  const int nodes = 1 + rng.below(5);
  for (int n = 0; n < nodes; ++n) s.nodes.push_back(node("node-" + std::to_string(n), 1 + rng.below(8)));
  const int projects = 1 + rng.below(5);
  const double quotas[] = {0, 0.5, 1, 2, 3, 4, 6};
  for (int p = 0; p < projects; ++p)
    s.projects.push_back(project("p" + std::to_string(p), quotas[rng.below(7)], rng.chance(80)));
  return s;
}

Workload random_job(Rng& rng, const ClusterState& s, int64_t order) {
  const std::string& proj = s.projects[std::size_t(rng.below(int(s.projects.size())))].name;
  const int kind = rng.below(10);
  const double fractions[] = {0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.7, 0.9};
  const std::string name = "j" + std::to_string(order);
  if (kind < 2) return job(proj, name, rng.below(3), order, JobType::kInteractive);
  if (kind < 4) {
    const double gpu = rng.chance(30) ? 0.5 : 1 + rng.below(2);
    return job(proj, name, gpu, order, JobType::kMpi, 2 + rng.below(3));
  }
  if (kind < 7) return job(proj, name, fractions[rng.below(8)], order);
  if (kind < 8 && rng.chance(30)) return job(proj, name, 0, order);  // CPU only
  return job(proj, name, 1 + rng.below(4), order);
}

struct Usage {
  std::map<std::pair<std::string, int>, int> units;  // (node, gpu) -> 1/1000 GPU in use
  std::set<std::pair<std::string, int>> whole;       // held by a whole-GPU pod
};

int units(double g) { return int(std::lround(g * 1000)); }

double need(const Workload& w) { return w.gpu_per_pod * w.pods; }

Usage usage_of(const ClusterState& s) {
  Usage u;
  for (const Workload& w : s.workloads) {
    if (!w.running) continue;
    for (const PodPlacement& pod : w.placement)
      for (int g : pod.gpu_indices) {
        u.units[{pod.node, g}] += units(pod.share_per_gpu);
        if (pod.share_per_gpu >= 1) u.whole.insert({pod.node, g});
      }
  }
  return u;
}

// Independent count of how many pods of `w`'s shape fit in the free capacity.
long pods_that_fit(const ClusterState& s, const Usage& u, const Workload& w) {
  if (w.gpu_per_pod <= 0) return 1L << 40;
  long count = 0;
  for (const Node& n : s.nodes) {
    int free_whole = 0;
    for (int g = 0; g < n.gpus; ++g) {
      auto it = u.units.find({n.name, g});
      const int used = it == u.units.end() ? 0 : it->second;
      if (used == 0) ++free_whole;
      if (w.gpu_per_pod < 1 && !u.whole.count({n.name, g})) count += (1000 - used) / units(w.gpu_per_pod);
    }
    if (w.gpu_per_pod >= 1) count += free_whole / int(w.gpu_per_pod);
  }
  return count;
}

// The invariants of one pass: `before` is the input, `d` the decision.
void check_pass(const ClusterState& before, const Decision& d) {
  const ClusterState after = apply(before, d);
  std::map<std::string, const Project*> projects;
  for (const Project& p : before.projects) projects[p.name] = &p;

  // Starts are pending jobs with one placement per pod (gang: all pods); preemptions hit
  // running, preemptible jobs only.
  std::set<std::string> seen;
  for (const StartedJob& st : d.start) {
    const Workload* w = find(before, st.id);
    REQUIRE(w != nullptr);
    CHECK_FALSE(w->running);
    CHECK(seen.insert(st.id).second);
    CHECK(int(st.placement.size()) == w->pods);
    CHECK_FALSE(never_fits(before, *w).has_value());
  }
  for (const PreemptedJob& p : d.preempt) {
    const Workload* w = find(before, p.id);
    REQUIRE(w != nullptr);
    CHECK(w->running);
    CHECK(w->type != JobType::kInteractive);
    CHECK_THAT(p.reason, Catch::StartsWith("preempted: project "));
  }
  // Every job left waiting has a reason; no other job has one.
  for (const Workload& w : before.workloads)
    CHECK(d.pending_reason.count(w.id) == size_t(!w.running && !started(d, w.id)));

  // Each pod on one node, on distinct existing GPUs; no GPU over 1.0; whole and fractional never mix.
  std::map<std::string, int> node_gpus;
  for (const Node& n : after.nodes) node_gpus[n.name] = n.gpus;
  for (const Workload& w : after.workloads) {
    if (!w.running || w.gpu_per_pod == 0) continue;
    for (const PodPlacement& pod : w.placement) {
      REQUIRE(node_gpus.count(pod.node) == 1);
      const std::size_t expected = w.gpu_per_pod >= 1 ? std::size_t(w.gpu_per_pod) : 1;
      CHECK(pod.gpu_indices.size() == expected);
      CHECK(std::set<int>(pod.gpu_indices.begin(), pod.gpu_indices.end()).size() == expected);
      for (int g : pod.gpu_indices) CHECK((g >= 0 && g < node_gpus[pod.node]));
      CHECK(std::abs(pod.share_per_gpu - std::min(1.0, w.gpu_per_pod)) < kEps);
    }
  }
  const Usage u = usage_of(after);
  for (const auto& [gpu, used] : u.units) {
    CHECK(used <= 1000);
    if (u.whole.count(gpu)) CHECK(used == 1000);
  }

  // Interactive jobs stay within their project's quota; allocation matches the reports.
  std::map<std::string, double> interactive, alloc;
  for (const Workload& w : after.workloads) {
    if (!w.running) continue;
    alloc[w.project] += need(w);
    if (w.type == JobType::kInteractive) interactive[w.project] += need(w);
  }
  for (const ProjectReport& r : d.projects) {
    CHECK(interactive[r.name] <= r.quota + kEps);
    CHECK(std::abs(alloc[r.name] - r.allocated) < kEps);
  }

  // Preemption only from projects above their fair share: the last victim of a project was
  // taken while it was above, so even now it is within one (the largest) victim of it.
  std::map<std::string, double> largest_victim;
  for (const PreemptedJob& p : d.preempt) {
    const Workload* w = find(before, p.id);
    auto [it, fresh] = largest_victim.emplace(w->project, need(*w));
    if (!fresh) it->second = std::max(it->second, need(*w));
  }
  for (const auto& [name, largest] : largest_victim) {
    INFO("victim project " << name << ", largest victim " << largest);
    CHECK(report(d, name).allocated + largest > report(d, name).fair_share - kEps);
  }

  // Work conservation: a waiting job that the quota rules admit does not fit in what is free.
  for (const Workload& w : after.workloads) {
    if (w.running || find(before, w.id)->running || never_fits(before, w)) continue;
    const Project* p = projects.count(w.project) ? projects[w.project] : nullptr;
    const double quota = p ? p->gpu_quota : 0;
    const bool capped = w.type == JobType::kInteractive || (p && !p->over_quota_allowed);
    if (capped && alloc[w.project] + need(w) > quota + kEps) continue;
    INFO("job " << w.id << " waits: " << d.pending_reason.at(w.id));
    CHECK(pods_that_fit(after, u, w) < w.pods);
  }
}

// Jobs finish at random between passes.
void complete_some(ClusterState& s, Rng& rng) {
  std::vector<Workload> kept;
  for (Workload& w : s.workloads)
    if (!(w.running && rng.chance(20))) kept.push_back(std::move(w));
  s.workloads = std::move(kept);
}

}  // namespace

TEST_CASE("random clusters keep every scheduling invariant (300 seeds × 8 passes)", "[scheduler][fast]") {
  int passes = 0, starts = 0, preemptions = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Rng rng(seed);
    ClusterState s = random_cluster(rng);
    int64_t order = 0;
    for (int pass = 0; pass < 8; ++pass) {
      const int arrivals = rng.below(9);
      for (int i = 0; i < arrivals; ++i) s.workloads.push_back(random_job(rng, s, ++order));
      INFO("seed " << seed << " pass " << pass);
      const Decision d = schedule(s);
      check_pass(s, d);
      // Same state in another order: the same decision.
      ClusterState shuffled = s;
      std::shuffle(shuffled.workloads.begin(), shuffled.workloads.end(), rng.engine);
      std::shuffle(shuffled.nodes.begin(), shuffled.nodes.end(), rng.engine);
      std::shuffle(shuffled.projects.begin(), shuffled.projects.end(), rng.engine);
      CHECK(dump(schedule(shuffled)) == dump(d));
      ++passes;
      starts += int(d.start.size());
      preemptions += int(d.preempt.size());
      s = apply(s, d);
      complete_some(s, rng);
    }
  }
  // The generator must actually exercise starts and preemptions, or the checks above prove little.
  CHECK(passes == 2400);
  CHECK(starts > 1000);
  CHECK(preemptions > 50);
}

TEST_CASE("after settling, every project gets min(quota, demand) and nobody waits below its fair share while another is above", "[scheduler][fast]") {
  const uint64_t seed = GENERATE(range(uint64_t(1), uint64_t(201)));
  Rng rng(seed * 7919);
  ClusterState s;
  const int nodes = 1 + rng.below(4);
  int capacity = 0;
  for (int n = 0; n < nodes; ++n) {
    s.nodes.push_back(node("node-" + std::to_string(n), 1 + rng.below(8)));
    capacity += s.nodes.back().gpus;
  }
  // Quotas that fit the cluster, 1-GPU training jobs (no fragmentation), submitted in waves.
  int left = capacity;
  const int projects = 2 + rng.below(3);
  for (int p = 0; p < projects; ++p) {
    const int quota = rng.below(left + 1);
    left -= quota;
    s.projects.push_back(project("p" + std::to_string(p), quota));
  }
  int64_t order = 0;
  for (int wave = 0; wave < 3; ++wave) {
    for (const Project& p : s.projects) {
      const int jobs = rng.below(capacity + 1);
      for (int j = 0; j < jobs; ++j) {
        ++order;
        s.workloads.push_back(job(p.name, "j" + std::to_string(order), 1, order));
      }
    }
    Decision d;
    for (int pass = 0; pass < 10; ++pass) {  // until nothing changes
      d = schedule(s);
      check_pass(s, d);
      s = apply(s, d);
      if (d.start.empty() && d.preempt.empty()) break;
    }
    INFO("seed " << seed << " wave " << wave);
    REQUIRE(d.start.empty());
    REQUIRE(d.preempt.empty());
    for (const ProjectReport& r : d.projects) {
      CHECK(r.allocated >= std::min(r.quota, r.requested) - kEps);
      if (r.pending == 0 || r.allocated + 1 > r.fair_share + kEps) continue;
      for (const ProjectReport& other : d.projects) CHECK(other.allocated <= other.fair_share + kEps);
    }
  }
}
