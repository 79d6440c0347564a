// The quota scenario of tests/local_backend/test_scheduling.cpp (NetApp TR-4858's over-quota and
// fairness walk-through) on the Kubernetes backend: the test API server's KAI-like scheduler
// (tests/kube/kai_scheduler.py) places the pods on declared Nodes by the projects' Queues, and
// lanectl shows the same project table as the local backend.
#include <catch2/catch.hpp>

#include "fake_server.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"

namespace {

using Cli = lane::test::Lanectl;
using Json = nlohmann::json;

using lane::test::has;

void declare_node(lane::test::FakeApiServer& server, const std::string& name, int gpus) {
  const std::string g = std::to_string(gpus);
  server.control("/_test/object", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}},
                                   {"status", {{"allocatable", {{"nvidia.com/gpu", g}}}, {"capacity", {{"nvidia.com/gpu", g}}}}}});
}

std::string status_of(const Cli& cli, const std::string& job, const std::string& project) {
  auto r = cli.run_shell("list -p " + project + " -o json");
  const Json listed = Json::parse(r.out);  // a Kubernetes List
  for (const auto& j : listed["items"])
    if (j["name"] == job) return j["status"];
  return "missing";
}

Json project_row(const Cli& cli, const std::string& name) {
  for (const auto& p : Json::parse(cli.run_shell("project list -o json").out))
    if (p["name"] == name) return p;
  return nullptr;
}

}  // namespace

TEST_CASE("kube quota scenario: an over-quota job is preempted for an under-quota project and resumes later",
          "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  server.control("/_test/settings", {{"kai_scheduler", true}});
  declare_node(server, "node-a", 8);
  declare_node(server, "node-b", 8);
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create team-a --gpu-quota 8").code == 0);
  REQUIRE(cli.run_shell("project create team-b --gpu-quota 8").code == 0);
  auto submit = [&](const std::string& name, const std::string& project, const std::string& gpus) {
    auto r = cli.run_shell("submit " + name + " -p " + project + " -g " + gpus + " -i x --command -- sleep 300");
    INFO(r.out);
    REQUIRE(r.code == 0);
  };

  // team-a takes the whole cluster: 8 GPUs in quota + 8 over quota.
  submit("a1", "team-a", "8");
  submit("a2", "team-a", "8");
  CHECK(status_of(cli, "a1", "team-a") == "Running");
  CHECK(status_of(cli, "a2", "team-a") == "Running");

  // team-b claims its quota: a2 (the over-quota job) is preempted, b1 starts.
  submit("b1", "team-b", "8");
  CHECK(status_of(cli, "b1", "team-b") == "Running");
  CHECK(status_of(cli, "a2", "team-a") == "Pending");
  CHECK(status_of(cli, "a1", "team-a") == "Running");
  auto describe = cli.run_shell("describe job a2 -p team-a");
  INFO(describe.out);
  CHECK(has(describe.out, "[Preempted]"));
  CHECK(has(describe.out, "[Unschedulable] not enough free GPUs"));

  // The same table as the local backend's.
  Json a = project_row(cli, "team-a");
  INFO(a.dump());
  CHECK(a["gpusAllocated"] == 8.0);
  CHECK(a["runningJobs"] == 1);
  CHECK(a["pendingJobs"] == 1);
  CHECK(a["gpuQuota"] == 8.0);
  CHECK(project_row(cli, "team-b")["gpusAllocated"] == 8.0);

  // When team-b's job goes away, a2 resumes.
  REQUIRE(cli.run_shell("delete job b1 -p team-b").code == 0);
  CHECK(status_of(cli, "a2", "team-a") == "Running");
  CHECK(project_row(cli, "team-a")["gpusAllocated"] == 16.0);
}

TEST_CASE("kube quota scenario: over-quota disabled keeps a project at its quota, with the reason",
          "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  server.control("/_test/settings", {{"kai_scheduler", true}});
  declare_node(server, "node-1", 8);
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create team-a --gpu-quota 2 --no-over-quota").code == 0);
  for (const char* name : {"j1", "j2", "j3"})
    REQUIRE(cli.run_shell(std::string("submit ") + name + " -p team-a -g 1 -i x --command -- sleep 300").code == 0);
  CHECK(status_of(cli, "j1", "team-a") == "Running");
  CHECK(status_of(cli, "j2", "team-a") == "Running");
  CHECK(status_of(cli, "j3", "team-a") == "Pending");
  auto describe = cli.run_shell("describe job j3 -p team-a");
  INFO(describe.out);
  CHECK(has(describe.out, "[OverLimit] queue team-a would hold 3 GPUs, over its limit of 2"));
  Json a = project_row(cli, "team-a");
  CHECK(a["gpusAllocated"] == 2.0);
  CHECK(a["runningJobs"] == 2);
  CHECK(a["pendingJobs"] == 1);

  // A pod that fits no declared Node waits with that reason.
  REQUIRE(cli.run_shell("project create team-b --gpu-quota 16").code == 0);
  REQUIRE(cli.run_shell("submit huge -p team-b -g 9 -i x --command -- sleep 300").code == 0);
  describe = cli.run_shell("describe job huge -p team-b");
  INFO(describe.out);
  CHECK(status_of(cli, "huge", "team-b") == "Pending");
  CHECK(has(describe.out, "[Unschedulable] not enough free GPUs: the workload needs 9"));
}
