// Issue 28 (noticed once): 50 concurrent `lanectl submit` on a fresh LANECTL_HOME left 49 jobs,
// every submit exiting 0. Each round starts 50 submits at once on a new home and checks that
// every job that was acknowledged is in the state. Bounded: LANE_SUBMIT_ROUNDS rounds (default
// 3), and no round starts after 35 s (each takes 5-20 s here).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("50 concurrent submits on a fresh home each leave their job in the state", "[reliability][slow]") {
  const char* v = std::getenv("LANE_SUBMIT_ROUNDS");
  const int rounds = v && *v ? std::atoi(v) : 3;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(35);
  int round = 0;
  for (; round < rounds && std::chrono::steady_clock::now() < end; ++round) {
    INFO("round " << round);
    Lanectl l;
    std::vector<std::pair<pid_t, std::string>> started;
    for (int i = 0; i < 50; ++i) {
      const std::string job = fmt::format("j{}", i);
      started.emplace_back(l.start({"submit", job, "-i", "x", "--command", "--", "/bin/true"}, job), job);
    }
    std::set<std::string> acknowledged;
    for (const auto& [pid, job] : started) {
      auto r = l.finish(pid, job);
      INFO(job << ": " << r.err);
      CHECK(r.code == 0);
      if (r.code == 0) acknowledged.insert(job);
    }
    auto list = l.run({"list", "-o", "json"});
    INFO(list.err);
    REQUIRE(list.code == 0);
    std::set<std::string> stored;
    const auto listed = nlohmann::json::parse(list.out);  // a Kubernetes List
    for (const auto& j : listed["items"]) stored.insert(j.value("name", ""));
    for (const auto& job : acknowledged) {
      INFO(job << " was acknowledged");
      CHECK(stored.count(job) == 1);
    }
    l.run({"delete", "--all"});
  }
  WARN(round << " rounds of 50 concurrent submits");
}
