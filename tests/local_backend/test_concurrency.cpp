// 50 lanectl processes submitting at once; a supervisor killed with SIGKILL.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sqlite3.h>

#include <set>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("50 concurrent submits: exactly 50 unique jobs, none lost", "[local_backend][slow]") {
  Lanectl l;
  std::vector<pid_t> pids;
  for (int i = 0; i < 50; ++i) {
    std::vector<std::string> args = {"submit", "-i", "x", "--command", "--", "/bin/true"};
    if (i % 2 == 0) {
      args.insert(args.begin() + 1, "job-n" + std::to_string(i));
    } else {
      args.insert(args.begin() + 1, {"--job-name-prefix", "auto"});  // races for the smallest free index
    }
    pids.push_back(l.start(args, "c" + std::to_string(i)));
  }
  int failures = 0;
  for (int i = 0; i < 50; ++i) {
    auto r = l.finish(pids[i], "c" + std::to_string(i));
    if (r.code != 0) {
      ++failures;
      WARN("submit " << i << " failed: " << r.err);
    }
  }
  CHECK(failures == 0);
  auto jobs = nlohmann::json::parse(l.run({"list", "-A", "-o", "json"}).out).at("items");
  std::set<std::string> names;
  for (const auto& j : jobs) names.insert(j["name"].get<std::string>());
  CHECK(jobs.size() == 50);
  CHECK(names.size() == 50);
  for (int i = 1; i <= 25; ++i) CHECK(names.count("auto-" + std::to_string(i)) == 1);
  // Every job runs to completion exactly once.
  for (const auto& n : names) {
    const auto doc = l.wait_status(n, {"Succeeded", "Failed"});
    INFO(n << ": " << doc.value("statusReason", "") << " " << doc.value("events", nlohmann::json::array()).dump());
    CHECK(doc.value("status", "") == "Succeeded");
  }
}

TEST_CASE("a supervisor killed with SIGKILL is detected and its job marked Failed", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "victim", "-i", "x", "--command", "--", "/bin/sleep", "300"}).code == 0);
  REQUIRE(l.wait_status("victim", {"Running"}).value("status", "") == "Running");

  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((l.home() / "state.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT sup_pid, child_pgid FROM jobs WHERE name = 'victim'", -1, &st, nullptr);
  pid_t sup = 0, child = 0;
  for (int i = 0; i < 50 && child == 0; ++i) {  // the child pid is recorded just after the start
    sqlite3_reset(st);
    if (sqlite3_step(st) == SQLITE_ROW) {
      sup = sqlite3_column_int(st, 0);
      child = sqlite3_column_int(st, 1);
    }
    if (child == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  REQUIRE(sup > 0);
  REQUIRE(child > 0);
  REQUIRE(kill(sup, SIGKILL) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  auto doc = l.job("victim");  // any command notices
  CHECK(doc.value("status", "") == "Failed");
  CHECK(doc.value("statusReason", "").find("supervisor process " + std::to_string(sup)) != std::string::npos);
  bool has_event = false;
  for (const auto& e : doc["events"]) has_event = has_event || e["reason"] == "SupervisorLost";
  CHECK(has_event);
  // The job's own process (sleep) was stopped too.
  bool gone = false;
  for (int i = 0; i < 30 && !gone; ++i) {
    std::string stat = lane::test::slurp("/proc/" + std::to_string(child) + "/stat");
    gone = stat.empty() || stat.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(gone);
}
