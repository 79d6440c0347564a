// never_fits_with_fix: the way out that follows each reason a job could never run. A job over
// its project's quota is told to ask fewer GPUs, raise the quota with `lanectl project set`, or
// (preemptible, over-quota disabled) enable over-quota; never to declare more nodes.
#include <catch2/catch.hpp>

#include "scheduler_test_util.h"

using namespace lane::submit::sched;
using namespace lane::submit::sched::test;
using lane::submit::JobType;

TEST_CASE("never_fits_with_fix names the quota's fixes for a job over a project's quota", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 8)};
  s.projects = {project("team-a", 2, /*over_quota=*/false), project("team-b", 1)};
  CHECK(never_fits_with_fix(s, job("team-a", "big", 3, 1)).value() ==
        "requests 3 GPUs but project team-a has a quota of 2 and over-quota is disabled; request at most 2 GPUs, "
        "raise the project's quota with `lanectl project set team-a --gpu-quota 3`, or enable over-quota (idle "
        "GPUs beyond the quota, preemptible while used) with `lanectl project set team-a --gpu-quota 2 "
        "--over-quota`");
  CHECK(never_fits_with_fix(s, job("team-b", "ui", 2, 1, JobType::kInteractive)).value() ==
        "interactive jobs must fit within the project's quota: requests 2 GPUs but project team-b has a quota of 1; "
        "request at most 1 GPUs, or raise the project's quota with `lanectl project set team-b --gpu-quota 2`");
  for (const auto& j : {job("team-a", "big", 3, 1), job("team-b", "ui", 2, 1, JobType::kInteractive)})
    CHECK(never_fits_with_fix(s, j)->find("set-nodes") == std::string::npos);
}

TEST_CASE("never_fits_with_fix points to set-nodes when the cluster is too small", "[scheduler][fast]") {
  ClusterState s;
  s.nodes = {node("node-1", 2)};
  s.projects = {project("team-a", 8)};
  CHECK(never_fits_with_fix(s, job("team-a", "big", 4, 1)).value() ==
        "requests 4 GPUs but the cluster has 2 in total; declare the cluster's GPUs with `lanectl cluster set-nodes "
        "NAME=GPUS...` or request fewer GPUs");
  CHECK_FALSE(never_fits_with_fix(s, job("team-a", "ok", 1, 1)).has_value());
}
