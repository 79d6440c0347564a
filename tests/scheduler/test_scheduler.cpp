// Scenario tests of the fair-share scheduler: each builds a small cluster by hand, runs one
// pass and checks the decision and its explanation against the rules in docs/scheduler.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>

#include "common/error.h"
#include "scheduler/scheduler_test_util.h"

using namespace lane::submit;
using namespace lane::submit::sched;
using namespace lane::submit::sched::test;

namespace {

// n pending 1-GPU training jobs of `project`, queue orders first, first+1, ...
void add_jobs(ClusterState& s, const std::string& project, int n, int64_t first, double gpu = 1) {
  for (int i = 0; i < n; ++i)
    s.workloads.push_back(job(project, "j" + std::to_string(first + i), gpu, first + i));
}

int count_started(const Decision& d, const std::string& project) {
  return int(std::count_if(d.start.begin(), d.start.end(),
                           [&](auto& s) { return s.id.rfind(project + "/", 0) == 0; }));
}

}  // namespace

TEST_CASE("quota is guaranteed even when another project submitted first", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4)};
  s.projects = {project("team-a", 4), project("team-b", 4)};
  add_jobs(s, "team-a", 8, 1);
  add_jobs(s, "team-b", 4, 100);
  const Decision d = schedule(s);
  CHECK(count_started(d, "team-a") == 4);
  CHECK(count_started(d, "team-b") == 4);
  CHECK(report(d, "team-a").fair_share == 4);
  CHECK(report(d, "team-a").allocated == 4);
  CHECK(report(d, "team-a").pending == 4);
  CHECK(report(d, "team-b").allocated == 4);
  // FIFO within the project: the four oldest of team-a run.
  for (int i = 1; i <= 4; ++i) CHECK(started(d, "team-a/j" + std::to_string(i)));
  const std::string& why = d.pending_reason.at("team-a/j5");
  CHECK_THAT(why, Catch::Contains("no node has 1 GPU free on one node (no GPU is completely free)"));
  CHECK_THAT(why, Catch::Contains("project team-a would exceed its fair share (4 + 1 > 4 GPUs)"));
}

TEST_CASE("spare GPUs are shared over quota in proportion to the quotas", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4), node("node-3", 4)};
  s.projects = {project("team-a", 2), project("team-b", 4), project("team-c", 0)};
  add_jobs(s, "team-a", 10, 1);
  add_jobs(s, "team-b", 10, 100);
  add_jobs(s, "team-c", 10, 200);
  const Decision d = schedule(s);
  // 12 GPUs: guarantees 2 + 4, the 6 spare split 2:4 by quota; quota 0 gets only leftovers.
  CHECK(report(d, "team-a").fair_share == 4);
  CHECK(report(d, "team-b").fair_share == 8);
  CHECK(report(d, "team-c").fair_share == 0);
  CHECK(report(d, "team-a").allocated == 4);
  CHECK(report(d, "team-b").allocated == 8);
  CHECK(report(d, "team-c").allocated == 0);
  CHECK(report(d, "team-a").over_quota);
  CHECK_THAT(report(d, "team-b").explanation[1],
             Catch::Contains("fair share 8 GPUs = 4 guaranteed + 4 of the GPUs other projects do not need"));
}

TEST_CASE("a project whose demand is met releases its part of the spare GPUs (water-filling)", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4), node("node-3", 4)};
  s.projects = {project("team-a", 2), project("team-b", 4), project("team-c", 0)};
  add_jobs(s, "team-a", 3, 1);
  add_jobs(s, "team-b", 5, 100);
  add_jobs(s, "team-c", 10, 200);
  const Decision d = schedule(s);
  CHECK(report(d, "team-a").fair_share == 3);
  CHECK(report(d, "team-b").fair_share == 5);
  CHECK(report(d, "team-c").fair_share == 4);  // quota 0: what the others leave
  CHECK(report(d, "team-c").allocated == 4);
  CHECK(d.pending_reason.size() == 6);
}

TEST_CASE("oversold quotas are scaled down in proportion to the quotas", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 6)};
  s.projects = {project("team-a", 8), project("team-b", 4)};
  add_jobs(s, "team-a", 8, 1);
  add_jobs(s, "team-b", 8, 100);
  const Decision d = schedule(s);
  CHECK(report(d, "team-a").fair_share == 4);
  CHECK(report(d, "team-b").fair_share == 2);
  CHECK(report(d, "team-a").allocated == 4);
  CHECK(report(d, "team-b").allocated == 2);
  CHECK_THAT(report(d, "team-a").explanation[1], Catch::Contains("the quotas add up to more than the cluster's 6 GPUs"));
}

TEST_CASE("over-quota disabled keeps a project at its quota on an idle cluster", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8)};
  s.projects = {project("team-a", 2, /*over_quota=*/false)};
  add_jobs(s, "team-a", 5, 1);
  const Decision d = schedule(s);
  CHECK(d.start.size() == 2);
  CHECK(report(d, "team-a").fair_share == 2);
  CHECK(report(d, "team-a").allocated == 2);
  CHECK(d.pending_reason.at("team-a/j3") ==
        "waiting for 1 GPU: project team-a is at its quota of 2 (2 in use) and over-quota is disabled");
  CHECK(never_fits(s, job("team-a", "big", 3, 9)).value() ==
        "requests 3 GPUs but project team-a has a quota of 2 and over-quota is disabled");
}

TEST_CASE("the youngest over-fair-share training jobs are preempted for a project below its fair share", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4), node("node-3", 4)};
  s.projects = {project("team-a", 4), project("team-b", 6), project("team-d", 2)};
  for (int i = 0; i < 8; ++i)
    s.workloads.push_back(running(job("team-a", "a" + std::to_string(i + 1), 1, i + 1),
                                  {on(i < 4 ? "node-1" : "node-2", {i % 4})}));
  // team-d holds the youngest jobs but is exactly at its fair share: never a victim.
  s.workloads.push_back(running(job("team-d", "d1", 1, 20), {on("node-3", {0})}));
  s.workloads.push_back(running(job("team-d", "d2", 1, 21), {on("node-3", {1})}));
  add_jobs(s, "team-b", 6, 30);
  const Decision d = schedule(s);
  CHECK(report(d, "team-a").fair_share == 4);
  CHECK(report(d, "team-b").fair_share == 6);
  REQUIRE(d.preempt.size() == 4);
  CHECK(d.preempt[0].id == "team-a/a8");  // youngest first
  CHECK(d.preempt[1].id == "team-a/a7");
  CHECK(d.preempt[2].id == "team-a/a6");
  CHECK(d.preempt[3].id == "team-a/a5");
  CHECK_FALSE(preempted(d, "team-d/d1"));
  CHECK_FALSE(preempted(d, "team-d/d2"));
  CHECK(count_started(d, "team-b") == 6);
  CHECK(report(d, "team-a").allocated == 4);
  CHECK(report(d, "team-b").allocated == 6);
  CHECK(d.preempt[0].reason ==
        "preempted: project team-b is below its fair share (2 of 6 GPUs) and needs 1 GPU for job "
        "team-b/j32; team-a is over its fair share (8 of 4)");
}

TEST_CASE("no preemption for a project that would then be above its fair share", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8)};
  s.projects = {project("team-a", 7), project("team-b", 1)};
  for (int i = 0; i < 8; ++i)
    s.workloads.push_back(running(job("team-a", "a" + std::to_string(i + 1), 1, i + 1), {on("node-1", {i})}));
  add_jobs(s, "team-b", 2, 100);
  const Decision d = schedule(s);
  // team-b's fair share is 1: its first job may reclaim one GPU, its second may not.
  REQUIRE(d.preempt.size() == 1);
  CHECK(d.preempt[0].id == "team-a/a8");
  CHECK(started(d, "team-b/j100"));
  CHECK_FALSE(started(d, "team-b/j101"));
  CHECK_THAT(d.pending_reason.at("team-b/j101"),
             Catch::Contains("project team-b would exceed its fair share (1 + 1 > 1 GPUs), so no "
                             "running jobs are preempted for it"));
}

TEST_CASE("no preemption at all when the requester is already at its fair share", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8)};
  s.projects = {project("team-a", 6), project("team-b", 2)};
  for (int i = 0; i < 6; ++i)
    s.workloads.push_back(running(job("team-a", "a" + std::to_string(i), 1, i), {on("node-1", {i})}));
  s.workloads.push_back(running(job("team-b", "b0", 1, 10), {on("node-1", {6})}));
  s.workloads.push_back(running(job("team-b", "b1", 1, 11), {on("node-1", {7})}));
  add_jobs(s, "team-b", 1, 20);
  const Decision d = schedule(s);
  CHECK(d.preempt.empty());
  CHECK(d.start.empty());
  CHECK(report(d, "team-b").fair_share == 2);
}

TEST_CASE("a victim is preempted only when that makes room (no useless preemption)", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4)};
  s.projects = {project("team-a", 0), project("team-b", 4), project("team-c", 3)};
  s.workloads.push_back(running(job("team-c", "shell", 3, 1, JobType::kInteractive), {on("node-2", {0, 1, 2})}));
  s.workloads.push_back(running(job("team-a", "a1", 1, 2), {on("node-1", {0})}));
  s.workloads.push_back(running(job("team-a", "a2", 1, 3), {on("node-1", {1})}));
  s.workloads.push_back(running(job("team-a", "a3", 2, 4), {on("node-1", {2, 3})}));
  s.workloads.push_back(running(job("team-a", "a5", 1, 6), {on("node-2", {3})}));  // youngest
  s.workloads.push_back(job("team-b", "two", 2, 7));
  const Decision d = schedule(s);
  // a5 is the youngest, but freeing node-2's last GPU does not make a 2-GPU block: it keeps running.
  REQUIRE(d.preempt.size() == 1);
  CHECK(d.preempt[0].id == "team-a/a3");
  const StartedJob* two = start_of(d, "team-b/two");
  REQUIRE(two != nullptr);
  CHECK(two->placement[0].node == "node-1");
  CHECK(two->placement[0].gpu_indices == std::vector<int>{2, 3});
  CHECK(report(d, "team-a").allocated == 3);
  CHECK(report(d, "team-a").fair_share == 3);
}

TEST_CASE("interactive jobs are never preempted and stay within quota", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8)};
  s.projects = {project("team-a", 2), project("team-b", 6)};
  // team-a's quota was lowered after its 4 interactive jobs started.
  for (int i = 0; i < 4; ++i)
    s.workloads.push_back(running(job("team-a", "i" + std::to_string(i), 1, i, JobType::kInteractive),
                                  {on("node-1", {i})}));
  s.workloads.push_back(running(job("team-a", "t0", 1, 10), {on("node-1", {4})}));
  s.workloads.push_back(running(job("team-a", "t1", 1, 11), {on("node-1", {5})}));
  add_jobs(s, "team-b", 6, 20);
  const Decision d = schedule(s);
  CHECK(d.preempt.size() == 2);
  CHECK(preempted(d, "team-a/t0"));
  CHECK(preempted(d, "team-a/t1"));
  CHECK(count_started(d, "team-b") == 4);
  CHECK_THAT(d.pending_reason.at("team-b/j24"),
             Catch::Contains("preempting the training jobs of projects above their fair share would not free enough room"));
  CHECK_THAT(d.pending_reason.at("team-b/j25"), Catch::Contains("waits behind team-b/j24"));

  ClusterState idle;
  idle.nodes = {node("node-1", 8)};
  idle.projects = {project("team-a", 2)};
  for (int i = 0; i < 3; ++i) idle.workloads.push_back(job("team-a", "i" + std::to_string(i), 1, i, JobType::kInteractive));
  const Decision quota = schedule(idle);
  CHECK(quota.start.size() == 2);  // 6 idle GPUs, but interactive jobs never go over quota
  CHECK(quota.pending_reason.at("team-a/i2") ==
        "waiting for 1 GPU: interactive jobs must fit within the quota and project team-a uses 2 of its quota of 2");
  CHECK(never_fits(idle, job("team-a", "big", 3, 5, JobType::kInteractive)).value() ==
        "interactive jobs must fit within the project's quota: requests 3 GPUs but project team-a has a quota of 2");
}

namespace {

// Places pending fractional jobs f0, f1, ... (queue order) on one 4-GPU node beside `run`;
// returns the GPU index of each, checking that each got exactly its share of one GPU.
std::vector<int> place_fractions(const std::vector<double>& fractions, std::vector<Workload> run = {}) {
  ClusterState s;
  s.nodes = {node("node-1", 4)};
  s.projects = {project("team-a", 4)};
  s.workloads = std::move(run);
  for (std::size_t i = 0; i < fractions.size(); ++i)
    s.workloads.push_back(job("team-a", "f" + std::to_string(i), fractions[i], int64_t(10 + i)));
  const Decision d = schedule(s);
  std::vector<int> gpu;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    const StartedJob* st = start_of(d, "team-a/f" + std::to_string(i));
    REQUIRE(st != nullptr);
    REQUIRE(st->placement.size() == 1);
    CHECK(st->placement[0].share_per_gpu == fractions[i]);
    gpu.push_back(st->placement[0].gpu_indices.at(0));
  }
  return gpu;
}

}  // namespace

TEST_CASE("fractional GPUs are packed best-fit and never exceed one GPU", "[scheduler][fast]") {
  const auto [fractions, gpus] = GENERATE(table<std::vector<double>, std::vector<int>>({
      {{0.5, 0.5}, {0, 0}},
      {{0.6, 0.6}, {0, 1}},
      {{0.2, 0.2, 0.2, 0.2, 0.2, 0.2}, {0, 0, 0, 0, 0, 1}},
  }));
  CHECK(place_fractions(fractions) == gpus);
}

TEST_CASE("a fraction goes to the partly used GPU it fits best", "[scheduler][fast]") {
  // GPU 0 has 0.3 left, GPU 1 has 0.5 left: 0.3 goes to GPU 0, 0.4 to GPU 1.
  std::vector<Workload> run = {running(job("team-a", "r0", 0.7, 1), {on("node-1", {0}, 0.7)}),
                               running(job("team-a", "r1", 0.5, 2), {on("node-1", {1}, 0.5)})};
  CHECK(place_fractions({0.3, 0.4}, run) == std::vector<int>{0, 1});
}

TEST_CASE("a fraction that fits on no GPU names the largest free share", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 1)};
  s.projects = {project("team-a", 1)};
  s.workloads.push_back(running(job("team-a", "r", 0.6, 1), {on("node-1", {0}, 0.6)}));
  s.workloads.push_back(job("team-a", "f", 0.6, 2));
  const Decision d = schedule(s);
  CHECK(d.start.empty());
  CHECK_THAT(d.pending_reason.at("team-a/f"),
             Catch::StartsWith("no GPU has 0.6 of its capacity free (largest free share: 0.4 on "
                               "node-1 GPU 0; no GPU is completely free)"));
}

TEST_CASE("whole-GPU pods never share a GPU with fractional pods", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 2)};
  s.projects = {project("team-a", 2)};
  s.workloads.push_back(running(job("team-a", "frac", 0.2, 1), {on("node-1", {0}, 0.2)}));
  s.workloads.push_back(job("team-a", "two", 2, 2));
  Decision d = schedule(s);
  CHECK(d.start.empty());
  CHECK_THAT(d.pending_reason.at("team-a/two"),
             Catch::StartsWith("no node has 2 GPUs free on one node (largest free block: 1 on node-1)"));

  s.workloads.back() = job("team-a", "one", 1, 2);
  d = schedule(s);
  const StartedJob* one = start_of(d, "team-a/one");
  REQUIRE(one != nullptr);
  CHECK(one->placement[0].gpu_indices == std::vector<int>{1});
}

TEST_CASE("a multi-GPU pod lands on one node, best fit", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4)};
  s.projects = {project("team-a", 8)};
  s.workloads.push_back(running(job("team-a", "r1", 2, 1), {on("node-1", {0, 1})}));
  s.workloads.push_back(running(job("team-a", "r2", 2, 2), {on("node-2", {2, 3})}));
  s.workloads.push_back(job("team-a", "three", 3, 3));
  s.workloads.push_back(job("team-a", "two", 2, 4));
  const Decision d = schedule(s);
  CHECK_THAT(d.pending_reason.at("team-a/three"),
             Catch::StartsWith("no node has 3 GPUs free on one node (largest free block: 2 on node-2)"));
  const StartedJob* two = start_of(d, "team-a/two");
  REQUIRE(two != nullptr);
  CHECK(two->placement.size() == 1);
  CHECK(two->placement[0].node == "node-1");
  CHECK(two->placement[0].gpu_indices == std::vector<int>{2, 3});

  ClusterState fit;
  fit.nodes = {node("node-1", 4), node("node-2", 4)};
  fit.projects = {project("team-a", 8)};
  fit.workloads.push_back(running(job("team-a", "r1", 1, 1), {on("node-1", {0})}));
  fit.workloads.push_back(job("team-a", "three", 3, 2));
  const Decision best = schedule(fit);
  REQUIRE(start_of(best, "team-a/three") != nullptr);
  CHECK(start_of(best, "team-a/three")->placement[0].node == "node-1");  // keeps node-2's 4 free
}

TEST_CASE("an MPI job is gang-scheduled: all its pods or none", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4)};
  s.projects = {project("team-a", 8)};
  s.workloads.push_back(running(job("team-a", "r1", 3, 1), {on("node-1", {0, 1, 2})}));
  s.workloads.push_back(running(job("team-a", "r2", 3, 2), {on("node-2", {0, 1, 2})}));
  s.workloads.push_back(job("team-a", "mpi3", 1, 3, JobType::kMpi, 3));
  Decision d = schedule(s);
  CHECK(d.start.empty());
  CHECK_THAT(d.pending_reason.at("team-a/mpi3"),
             Catch::StartsWith("gang of 3 pods × 1 GPU must start together, but only 2 such pods fit "
                               "now (largest free block: 1 on node-1)"));

  s.workloads.back() = job("team-a", "mpi2", 1, 3, JobType::kMpi, 2);
  d = schedule(s);
  const StartedJob* mpi = start_of(d, "team-a/mpi2");
  REQUIRE(mpi != nullptr);
  REQUIRE(mpi->placement.size() == 2);
  CHECK(mpi->placement[0].node != mpi->placement[1].node);  // pods may span nodes

  ClusterState empty;
  empty.nodes = {node("node-1", 4), node("node-2", 4), node("node-3", 2)};
  empty.projects = {project("team-a", 8)};
  CHECK(never_fits(empty, job("team-a", "m", 3, 1, JobType::kMpi, 3)).value() ==
        "needs 3 pods × 3 GPUs together, but at most 2 such pods fit on the cluster's nodes");
  CHECK_FALSE(never_fits(empty, job("team-a", "m", 4, 1, JobType::kMpi, 2)).has_value());
}

TEST_CASE("never_fits names what the cluster can never give", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8), node("node-2", 8)};
  s.projects = {project("team-a", 16)};
  // "" = the job can run here.
  const auto [gpus, reason] = GENERATE(table<double, std::string>({
      {20, "requests 20 GPUs but the cluster has 16 in total"},
      {9, "each pod needs 9 GPUs on one node, but the largest node (node-1) has 8"},
      {1.5, "requests 1.5 GPUs per pod: ask for a fraction below 1 (e.g. 0.5) or a whole number of GPUs"},
      {0.25, ""},
      {0, ""},
  }));
  CAPTURE(gpus);
  CHECK(never_fits(s, job("team-a", "x", gpus, 1)).value_or("") == reason);
}

TEST_CASE("a pending job that can never fit waits with that reason and does not count as demand", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8), node("node-2", 8)};
  s.projects = {project("team-a", 16)};
  s.workloads.push_back(job("team-a", "huge", 20, 1));
  const Decision d = schedule(s);
  CHECK(d.pending_reason.at("team-a/huge") == "requests 20 GPUs but the cluster has 16 in total");
  CHECK(report(d, "team-a").fair_share == 0);
}

TEST_CASE("CPU-only jobs start without GPUs and without counting against quota", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 0)};
  s.projects = {project("team-a", 0, false)};
  s.workloads.push_back(job("team-a", "cpu", 0, 1));
  const Decision d = schedule(s);
  REQUIRE(d.start.size() == 1);
  CHECK(d.start[0].placement[0].node == "node-1");
  CHECK(d.start[0].placement[0].gpu_indices.empty());
  CHECK(report(d, "team-a").allocated == 0);
}

TEST_CASE("projects are served furthest below their fair share first", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4)};
  s.projects = {project("team-a", 2), project("team-b", 2)};
  s.workloads.push_back(running(job("team-a", "r", 1, 1), {on("node-1", {0})}));
  // 3 free GPUs: team-b (0 of 2) goes first, then the tie (team-a 1 of 2, team-b 1 of 2) by name.
  add_jobs(s, "team-a", 3, 10);
  add_jobs(s, "team-b", 3, 20);
  const Decision d = schedule(s);
  REQUIRE(d.start.size() == 3);
  CHECK(d.start[0].id == "team-b/j20");
  CHECK(d.start[1].id == "team-a/j10");
  CHECK(d.start[2].id == "team-b/j21");
}

TEST_CASE("same state in any order gives the same decision", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4), node("node-2", 4), node("node-3", 2)};
  s.projects = {project("team-a", 3), project("team-b", 3), project("team-c", 0)};
  s.workloads.push_back(running(job("team-a", "r1", 2, 1), {on("node-1", {0, 1})}));
  s.workloads.push_back(running(job("team-c", "r2", 1, 2), {on("node-2", {3})}));
  s.workloads.push_back(running(job("team-c", "r3", 0.5, 3), {on("node-3", {0}, 0.5)}));
  add_jobs(s, "team-a", 4, 10, 0.5);
  add_jobs(s, "team-b", 5, 20);
  s.workloads.push_back(job("team-b", "mpi", 1, 30, JobType::kMpi, 2));
  s.workloads.push_back(job("team-c", "i", 1, 31, JobType::kInteractive));
  const std::string expected = dump(schedule(s));
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(s.nodes.begin(), s.nodes.end(), rng);
    std::shuffle(s.projects.begin(), s.projects.end(), rng);
    std::shuffle(s.workloads.begin(), s.workloads.end(), rng);
    CHECK(dump(schedule(s)) == expected);
  }
}

TEST_CASE("an inconsistent state is rejected with a clear error", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 2)};
  s.projects = {project("team-a", 2)};
  std::string why;
  std::tie(s.workloads, why) = GENERATE(table<std::vector<Workload>, std::string>({
      {{job("team-a", "x", 1, 1), job("team-a", "x", 1, 2)}, "workload team-a/x is listed twice"},
      {{running(job("team-a", "p", 0.6, 1), {on("node-1", {0}, 0.6)}),
        running(job("team-a", "q", 0.6, 2), {on("node-1", {0}, 0.6)})},
       "GPU 0 on node node-1 would be used 1.2 > 1"},
      {{running(job("team-a", "p", 1, 1), {on("node-9", {0})})}, "unknown node 'node-9'"},
      {{running(job("team-a", "p", 1, 1), {on("node-1", {5})})}, "GPU 5 does not exist on node node-1"},
  }));
  CHECK_THROWS_AS(schedule(s), lane::Error);
  CHECK_THROWS_WITH(schedule(s), Catch::Contains(why));
}

TEST_CASE("Workload::preemptible overrides the type: preemptible interactive, non-preemptible training", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 4)};
  s.projects = {project("team-a", 1), project("team-b", 3)};
  // team-a runs 3 GPUs over its quota of 1: a preemptible interactive job and a training job.
  Workload shell = running(job("team-a", "shell", 2, 1, JobType::kInteractive), {on("node-1", {0, 1})});
  shell.preemptible = true;
  s.workloads.push_back(shell);
  Workload steady = running(job("team-a", "steady", 1, 2), {on("node-1", {2})});
  steady.preemptible = false;
  s.workloads.push_back(steady);
  add_jobs(s, "team-b", 3, 20);
  const Decision d = schedule(s);
  CHECK(preempted(d, "team-a/shell"));    // preemptible although interactive
  CHECK_FALSE(preempted(d, "team-a/steady"));

  ClusterState idle;
  idle.nodes = {node("node-1", 4)};
  idle.projects = {project("team-a", 1)};
  Workload a = job("team-a", "a", 1, 1), b = job("team-a", "b", 1, 2);
  a.preemptible = b.preemptible = false;
  idle.workloads = {a, b};
  const Decision quota = schedule(idle);
  CHECK(started(quota, "team-a/a"));
  CHECK(quota.pending_reason.at("team-a/b") ==
        "waiting for 1 GPU: non-preemptible jobs must fit within the quota and project team-a uses 1 of its quota of 1");
  Workload big = job("team-a", "big", 2, 3);
  big.preemptible = false;
  CHECK(never_fits(idle, big).value() ==
        "non-preemptible jobs must fit within the project's quota: requests 2 GPUs but project team-a has a quota of 1");
  Workload shell2 = job("team-a", "shell2", 3, 4, JobType::kInteractive);
  shell2.preemptible = true;
  CHECK_FALSE(never_fits(idle, shell2).has_value());  // may go over quota like training
}
