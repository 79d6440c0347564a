// Benchmark of one scheduling pass (docs/BENCHMARKS.md).
//   bench_scheduler [repetitions]
// Scenarios, each timed as the median of the repetitions:
//   * fair-share pass, 10,000 pending jobs, 100 projects, 1,000 GPUs (125 nodes × 8)   <- target ≤ 100 ms
//   * the same pass with 1,000 pending jobs (scaling baseline)
//   * naive first-fit: queue order, linear scan of every node and GPU, no fair share, no
//     fractions index, no reclaim (the named baseline for the 10,000-job pass)
//   * a contended pass: half the projects hold the whole cluster over quota, the other half
//     submit 10,000 jobs, so the reclaim phase preempts
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "submit/scheduler/scheduler.h"

using namespace lane::submit;
using namespace lane::submit::sched;

namespace {

ClusterState make_cluster(int nodes, int gpus_per_node, int projects) {
  ClusterState s;
  for (int n = 0; n < nodes; ++n) s.nodes.push_back({fmt::format("node-{:03}", n), gpus_per_node});
  const double quota = double(nodes * gpus_per_node) / projects;
  for (int p = 0; p < projects; ++p) s.projects.push_back({fmt::format("team-{:03}", p), quota, true});
  return s;
}

// A realistic mix: mostly 1-GPU training, some multi-GPU, fractions, interactive and MPI gangs.
void add_pending(ClusterState& s, int jobs, int first_project, int project_count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double fractions[] = {0.2, 0.25, 0.3, 0.5, 0.6};
  const int64_t base = int64_t(s.workloads.size());
  for (int j = 0; j < jobs; ++j) {
    Workload w;
    w.project = s.projects[std::size_t(first_project + int(rng() % uint64_t(project_count)))].name;
    w.id = fmt::format("{}/job-{}", w.project, base + j);
    w.queue_order = base + j;
    const int kind = int(rng() % 100);
    if (kind < 55) { w.gpu_per_pod = 1; }
    else if (kind < 65) { w.gpu_per_pod = 2; }
    else if (kind < 70) { w.gpu_per_pod = 4; }
    else if (kind < 72) { w.gpu_per_pod = 8; }
    else if (kind < 87) { w.gpu_per_pod = fractions[rng() % 5]; }
    else if (kind < 95) { w.gpu_per_pod = 1; w.type = JobType::kInteractive; }
    else { w.gpu_per_pod = 1; w.type = JobType::kMpi; w.pods = 2 + int(rng() % 3); }
    s.workloads.push_back(std::move(w));
  }
}

// The contended state: projects [0, half) run 1-GPU training jobs on every GPU.
void fill_with_running(ClusterState& s, int half) {
  int64_t order = -1'000'000;
  int p = 0;
  for (const Node& n : s.nodes)
    for (int g = 0; g < n.gpus; ++g) {
      Workload w;
      w.project = s.projects[std::size_t(p++ % half)].name;
      w.id = fmt::format("{}/run-{}-{}", w.project, n.name, g);
      w.queue_order = order++;
      w.gpu_per_pod = 1;
      w.running = true;
      w.placement = {PodPlacement{n.name, {g}, 1.0}};
      s.workloads.push_back(std::move(w));
    }
}

// Baseline: queue order, first node/GPUs that fit by linear scan, no fair share or quotas.
std::size_t naive_first_fit(const ClusterState& s) {
  std::vector<std::vector<double>> used;
  for (const Node& n : s.nodes) used.emplace_back(std::size_t(n.gpus), 0.0);
  std::vector<const Workload*> order;
  for (const Workload& w : s.workloads) order.push_back(&w);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->queue_order < b->queue_order; });
  std::size_t started = 0;
  for (const Workload* w : order) {
    std::vector<std::pair<std::size_t, std::vector<int>>> placed;
    const int want = w->gpu_per_pod >= 1 ? int(w->gpu_per_pod) : 1;
    const double share = std::min(1.0, w->gpu_per_pod);
    for (int pod = 0; pod < w->pods; ++pod) {
      bool ok = false;
      for (std::size_t n = 0; n < used.size() && !ok; ++n) {
        std::vector<int> gpus;
        for (std::size_t g = 0; g < used[n].size() && int(gpus.size()) < want; ++g)
          if (share < 1 ? used[n][g] + share <= 1.0 + 1e-9 && used[n][g] < 1 : used[n][g] == 0) gpus.push_back(int(g));
        if (int(gpus.size()) == want) {
          for (int g : gpus) used[n][std::size_t(g)] += share;
          placed.emplace_back(n, std::move(gpus));
          ok = true;
        }
      }
      if (!ok) {
        for (auto& [n, gpus] : placed)
          for (int g : gpus) used[n][std::size_t(g)] -= share;
        placed.clear();
        break;
      }
    }
    started += placed.empty() ? 0 : 1;
  }
  return started;
}

double cpu_ms_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Median wall-clock and CPU time of `reps` runs. On a shared machine the CPU time is the
// steadier figure (it excludes the time the process waits for a core).
struct Timing {
  double wall_ms = 0;
  double cpu_ms = 0;
};

template <class F>
Timing median_ms(int reps, F&& run) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_ms_now();
    run();
    cpu.push_back(cpu_ms_now() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;

  ClusterState big = make_cluster(125, 8, 100);
  add_pending(big, 10'000, 0, 100, 1);
  ClusterState small = make_cluster(125, 8, 100);
  add_pending(small, 1'000, 0, 100, 2);
  ClusterState contended = make_cluster(125, 8, 100);
  fill_with_running(contended, 50);
  add_pending(contended, 10'000, 50, 50, 3);

  Decision d_big, d_small, d_contended;
  std::size_t naive_started = 0;
  const Timing t_big = median_ms(reps, [&] { d_big = schedule(big); });
  const Timing t_small = median_ms(reps, [&] { d_small = schedule(small); });
  const Timing t_naive = median_ms(reps, [&] { naive_started = naive_first_fit(big); });
  const Timing t_contended = median_ms(reps, [&] { d_contended = schedule(contended); });

  std::printf("scheduler pass, 125 nodes x 8 GPUs = 1,000 GPUs, 100 projects, median of %d runs\n\n", reps);
  std::printf("| scenario | jobs in state | started | preempted | wall ms | CPU ms |\n|---|---:|---:|---:|---:|---:|\n");
  auto row = [](const char* name, const char* jobs, std::size_t started, std::size_t preempted, Timing t) {
    std::printf("| %s | %s | %zu | %zu | %.1f | %.1f |\n", name, jobs, started, preempted, t.wall_ms, t.cpu_ms);
  };
  row("fair-share pass (target <= 100 ms)", "10,000 pending", d_big.start.size(), d_big.preempt.size(), t_big);
  row("fair-share pass, 1,000 jobs (scaling baseline)", "1,000 pending", d_small.start.size(),
      d_small.preempt.size(), t_small);
  row("naive first-fit, no fair share (baseline)", "10,000 pending", naive_started, 0, t_naive);
  row("contended: 50 projects over quota, 50 below", "1,000 running + 10,000 pending",
      d_contended.start.size(), d_contended.preempt.size(), t_contended);
  std::printf("\nratio fair-share / naive first-fit (10,000 jobs, CPU): %.2f\n", t_big.cpu_ms / t_naive.cpu_ms);
  std::printf("ratio 10,000 jobs / 1,000 jobs (CPU): %.2f (10x the jobs)\n", t_big.cpu_ms / t_small.cpu_ms);
  // The pass is single-threaded: its CPU time is its wall time on an idle core. The wall time
  // printed above also counts the time spent waiting for a core on a shared machine.
  std::printf("target 10,000-job pass <= 100 ms of CPU: %s (CPU %.1f ms, wall %.1f ms)\n",
              t_big.cpu_ms <= 100 ? "met" : "MISSED", t_big.cpu_ms, t_big.wall_ms);
  return 0;
}
