// suspend/resume, attach, `logs -f` of a job deleted meanwhile, and the -o wide columns, with
// real jobs on the local backend.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/lanectl_runner.h"
#include "support/text_has.h"

using lane::test::Lanectl;

using lane::test::has;

TEST_CASE("suspend stops a running job and keeps it Suspended and resume runs it again", "[local_backend][slow]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=1"}).code == 0);
  auto s = l.run({"submit", "sleeper", "-i", "busybox", "-g", "1", "--command", "--", "/bin/sh", "-c",
                  "echo started; while true; do echo tick; sleep 0.1; done"});
  REQUIRE(s.code == 0);
  REQUIRE(l.wait_status("sleeper", {"Running"}).value("status", "") == "Running");
  // A second job waits for the only GPU.
  REQUIRE(l.run({"submit", "waiter", "-i", "busybox", "-g", "1", "--command", "--", "/bin/true"}).code == 0);
  CHECK(l.job("waiter").value("status", "") == "Pending");

  auto r = l.run({"suspend", "sleeper"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "Job sleeper suspended successfully.\n");
  // Again: nothing to do, and it says so.
  r = l.run({"suspend", "sleeper"});
  CHECK(r.code == 0);
  CHECK(r.out == "Job sleeper is already suspended.\n");
  auto doc = l.job("sleeper");
  CHECK(doc.value("status", "") == "Suspended");
  CHECK(doc["gpusAllocated"] == 0);
  // Its processes are gone: the log stops growing.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto lines = l.run({"logs", "sleeper"}).out.size();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  CHECK(l.run({"logs", "sleeper"}).out.size() == lines);
  // Its GPU went to the waiting job, and the scheduler leaves the suspended one alone.
  CHECK(l.wait_status("waiter", {"Succeeded"}).value("status", "") == "Succeeded");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(l.job("sleeper").value("status", "") == "Suspended");
  auto list = l.run({"list"});
  CHECK(has(list.out, "sleeper  Suspended"));
  CHECK(has(l.run({"describe", "job", "sleeper"}).out, "[Suspended]"));

  // Resume: Pending again, then Running on the free GPU.
  CHECK(l.run({"resume", "waiter"}).code == 2);  // not suspended
  r = l.run({"resume", "sleeper"});
  REQUIRE(r.code == 0);
  CHECK(r.out == "Job sleeper resumed successfully.\n");
  CHECK(l.wait_status("sleeper", {"Running"}).value("status", "") == "Running");
  CHECK(has(l.run({"describe", "job", "sleeper"}).out, "[Resumed]"));

  // Errors: a job that does not exist (1), a finished job (2).
  r = l.run({"suspend", "nosuch"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "job 'nosuch' does not exist in project 'default'"));
  r = l.run({"suspend", "waiter"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "job 'waiter' is Succeeded"));
}

TEST_CASE("attach waits for the job, prints its output until it ends and exits with its code", "[local_backend][slow]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "talker", "-i", "busybox", "--command", "--", "/bin/sh", "-c",
                 "echo one; sleep 1; echo two; exit 3"}).code == 0);
  auto r = l.run({"attach", "talker"});
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.out == "one\ntwo\n");
  r = l.run({"attach", "nosuch"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "job 'nosuch' does not exist"));
}

TEST_CASE("logs -f ends with 'job X was deleted' when the job is deleted while followed", "[local_backend][slow]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "longrun", "-i", "busybox", "--command", "--", "/bin/sh", "-c",
                 "echo hello; sleep 60"}).code == 0);
  REQUIRE(l.wait_status("longrun", {"Running"}).value("status", "") == "Running");
  pid_t follower = l.start({"logs", "-f", "longrun"}, "follow");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  REQUIRE(l.run({"delete", "job", "longrun"}).code == 0);
  auto r = l.finish(follower, "follow");
  CHECK(r.code == 1);
  CHECK(r.out == "hello\n");
  CHECK(has(r.err, "lanectl: error: job longrun was deleted"));
}

TEST_CASE("list -o wide and describe -o wide add IP, START TIME, PODS and PREEMPTIBLE", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "trainer", "-i", "busybox", "--command", "--", "/bin/true"}).code == 0);
  REQUIRE(l.run({"submit", "notebook", "-i", "busybox", "--interactive", "--command", "--", "/bin/true"}).code == 0);
  REQUIRE(l.wait_status("trainer", {"Succeeded"}).value("status", "") == "Succeeded");
  REQUIRE(l.wait_status("notebook", {"Succeeded"}).value("status", "") == "Succeeded");
  auto started = l.job("trainer").value("startedAt", "");
  REQUIRE(!started.empty());

  auto wide = l.run({"list", "-o", "wide"});
  REQUIRE(wide.code == 0);
  CHECK(has(wide.out, "SERVICE URL(S)  REASON  IP  START TIME"));
  CHECK(has(wide.out, "START TIME            PODS  PREEMPTIBLE\n"));
  // Local jobs have no pod IP; START TIME is RFC 3339; a train job is preemptible, an interactive one not.
  CHECK(has(wide.out, "  -   " + started + "  1     yes\n"));
  CHECK(has(wide.out, "  1     no\n"));
  auto plain = l.run({"list"});
  CHECK(!has(plain.out, "PREEMPTIBLE"));

  auto d = l.run({"describe", "job", "trainer"});
  CHECK(has(d.out, "  GPU DEVICES\n"));  // was GPUS: the indices read as a count
  CHECK(!has(d.out, "START TIME"));
  auto dw = l.run({"describe", "job", "trainer", "-o", "wide"});
  CHECK(has(dw.out, "GPU DEVICES  IP  START TIME\n"));
  CHECK(has(dw.out, "  -   " + started + "\n"));
  auto json = nlohmann::json::parse(l.run({"describe", "job", "trainer", "-o", "json"}).out);
  CHECK(json["pods"][0]["startedAt"] == started);
  CHECK(json["pods"][0]["ip"] == "");
  CHECK(json["pods"][0].contains("gpuIndices"));
}

TEST_CASE("a stopped job's processes that outlive its command still get the grace period", "[local_backend][fast]") {
  // What mpirun does when it is stopped: the command ends at once while the processes it started
  // are still saving their checkpoint (here: a SIGTERM handler that takes a second to write its
  // file). The job's init waits for them, up to the grace period, instead of ending with the command.
  Lanectl l;
  const std::filesystem::path host = l.home().parent_path() / (l.home().filename().string() + "-stop");
  std::filesystem::create_directories(host);
  ::chmod(host.c_str(), 0777);  // the job may run as the project's own user
  const std::string script =
      "(trap 'sleep 1; echo saved > /out/saved; exit 0' TERM; echo ready > /out/ready; "
      "while :; do sleep 0.1; done) & wait";
  REQUIRE(l.run({"submit", "outlives", "-i", "x", "-v", host.string() + ":/out", "--command", "--", "/bin/sh", "-c",
                 script})
              .code == 0);
  for (int i = 0; i < 100 && !std::filesystem::exists(host / "ready"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(std::filesystem::exists(host / "ready"));
  REQUIRE(l.run({"suspend", "outlives"}).code == 0);
  for (int i = 0; i < 50 && !std::filesystem::exists(host / "saved"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(std::filesystem::exists(host / "saved"));
  CHECK(l.job("outlives").value("status", "") == "Suspended");
  std::error_code ec;
  std::filesystem::remove_all(host, ec);
}
