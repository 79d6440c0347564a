// The local backend drives the fair-share scheduler: quotas, preemption/resume, fractions.
#include <catch2/catch.hpp>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

namespace {

bool has_event(const nlohmann::json& job, const std::string& reason) {
  for (const auto& e : job.value("events", nlohmann::json::array()))
    if (e.value("reason", "") == reason) return true;
  return false;
}

}  // namespace

TEST_CASE("an over-quota training job is preempted for an under-quota project and resumes later", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=8", "node-b=8"}).code == 0);
  REQUIRE(l.run({"project", "create", "team-a", "--gpu-quota", "8"}).code == 0);
  REQUIRE(l.run({"project", "create", "team-b", "--gpu-quota", "8"}).code == 0);
  l.track_project("team-a");
  l.track_project("team-b");
  const std::vector<std::string> sleep = {"-i", "x", "--command", "--", "/bin/sleep", "300"};
  auto submit = [&](const std::string& name, const std::string& project, const std::string& gpus) {
    std::vector<std::string> args = {"submit", name, "-p", project, "-g", gpus};
    args.insert(args.end(), sleep.begin(), sleep.end());
    auto r = l.run(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
  };

  // team-a takes the whole cluster: 8 GPUs in quota + 8 over quota.
  submit("a1", "team-a", "8");
  submit("a2", "team-a", "8");
  REQUIRE(l.wait_status("a1", {"Running"}, "team-a").value("status", "") == "Running");
  REQUIRE(l.wait_status("a2", {"Running"}, "team-a").value("status", "") == "Running");

  // team-b claims its quota: a2 (the over-quota job) is preempted, b1 starts.
  submit("b1", "team-b", "8");
  auto b1 = l.wait_status("b1", {"Running"}, "team-b");
  CHECK(b1.value("status", "") == "Running");
  auto a2 = l.job("a2", "team-a");
  CHECK(a2.value("status", "") == "Pending");
  CHECK(a2.value("statusReason", "").find("preempted") != std::string::npos);
  CHECK(has_event(a2, "Preempted"));
  CHECK(l.job("a1", "team-a").value("status", "") == "Running");
  auto list = l.run({"list", "-A", "-o", "wide"});
  CHECK(list.out.find("preempted") != std::string::npos);

  auto projects = nlohmann::json::parse(l.run({"project", "list", "-o", "json"}).out);
  for (const auto& p : projects) {
    if (p["name"] == "team-a") {
      CHECK(p["gpusAllocated"] == 8.0);
      CHECK(p["runningJobs"] == 1);
      CHECK(p["pendingJobs"] == 1);
      CHECK(p["gpuQuota"] == 8.0);
    }
    if (p["name"] == "team-b") CHECK(p["gpusAllocated"] == 8.0);
  }

  // When team-b's job goes away, a2 resumes.
  REQUIRE(l.run({"delete", "job", "b1", "-p", "team-b"}).code == 0);
  a2 = l.wait_status("a2", {"Running"}, "team-a");
  CHECK(a2.value("status", "") == "Running");
  CHECK(has_event(a2, "Resumed"));
  auto describe = l.run({"describe", "job", "a2", "-p", "team-a"});
  CHECK(describe.out.find("[Preempted] preempted") != std::string::npos);
  CHECK(describe.out.find("[Resumed]") != std::string::npos);
}

TEST_CASE("two 0.5-GPU jobs share one GPU and a third waits", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "solo=1"}).code == 0);
  for (const char* name : {"half-1", "half-2", "half-3"})
    REQUIRE(l.run({"submit", name, "-g", "0.5", "-i", "x", "--command", "--", "/bin/sleep", "300"}).code == 0);
  auto h1 = l.wait_status("half-1", {"Running"});
  auto h2 = l.wait_status("half-2", {"Running"});
  REQUIRE(h1.value("status", "") == "Running");
  REQUIRE(h2.value("status", "") == "Running");
  CHECK(h1["gpusAllocated"] == 0.5);
  CHECK(h2["gpusAllocated"] == 0.5);
  CHECK(h1["pods"][0]["gpuIndices"] == h2["pods"][0]["gpuIndices"]);
  CHECK(h1["pods"][0]["gpuShare"] == 0.5);
  auto h3 = l.job("half-3");
  CHECK(h3.value("status", "") == "Pending");
  CHECK_FALSE(h3.value("statusReason", "").empty());
  auto list = l.run({"list"});
  CHECK(list.out.find("0.5 (0.5)") != std::string::npos);
  auto nodes = nlohmann::json::parse(l.run({"cluster", "nodes", "-o", "json"}).out);
  CHECK(nodes[0]["gpusAllocated"] == 1.0);
}
