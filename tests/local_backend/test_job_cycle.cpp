// submit → list → logs → describe → delete with a real command.
#include <catch2/catch.hpp>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("submit, list, logs, describe and delete a job", "[local_backend][fast]") {
  Lanectl l;
  auto s = l.run({"submit", "hello", "-i", "busybox", "-e", "GREETING=hello world", "--command", "--", "/bin/sh",
                  "-c", "echo \"$GREETING\"; echo to-stderr >&2; echo home=${LANECTL_HOME-unset}"});
  INFO(s.err);
  REQUIRE(s.code == 0);
  CHECK(s.out == "The job 'hello' has been submitted successfully\n"
                 "You can run `lanectl describe job hello -p default` to check the job status\n");

  auto doc = l.wait_status("hello", {"Succeeded", "Failed"});
  REQUIRE(doc.value("status", "") == "Succeeded");
  CHECK(doc["exitCode"] == 0);
  CHECK(doc["type"] == "Train");
  CHECK(doc["project"] == "default");

  auto logs = l.run({"logs", "hello"});
  REQUIRE(logs.code == 0);
  CHECK(logs.out == "hello world\nto-stderr\nhome=unset\n");  // jobs never see the state directory
  auto tail = l.run({"logs", "hello", "--tail", "1"});
  CHECK(tail.out == "home=unset\n");
  auto stamped = l.run({"logs", "hello", "--timestamps", "-t", "1"});
  CHECK(stamped.out.size() > 28);
  CHECK(stamped.out[4] == '-');
  CHECK(stamped.out.substr(26, 2) == "Z ");
  CHECK(l.run({"logs", "hello", "--since", "1h"}).out == logs.out);
  // --since-time: the second of the last line's stamp keeps that line (the API's sinceSeconds is
  // rounded up), a time an hour earlier keeps them all.
  auto since_last = l.run({"logs", "hello", "--since-time", stamped.out.substr(0, 19) + "Z"});
  REQUIRE(since_last.code == 0);
  CHECK(since_last.out.find("home=unset\n") != std::string::npos);
  CHECK(l.run({"logs", "hello", "--since-time", "2000-01-01T00:00:00+01:00"}).out == logs.out);

  auto list = l.run({"list"});
  REQUIRE(list.code == 0);
  CHECK(list.out.rfind("Showing jobs for project default\n", 0) == 0);
  CHECK(list.out.find("NAME   STATUS     AGE") != std::string::npos);
  CHECK(list.out.find("GPUs ALLOC (REQ)  PODs RUN (PEND)\n") != std::string::npos);
  CHECK(list.out.find("hello  Succeeded") != std::string::npos);
  CHECK(list.out.find("0 (0)") != std::string::npos);  // a finished job holds no GPU, as `top job` says

  auto describe = l.run({"describe", "job", "hello"});
  REQUIRE(describe.code == 0);
  CHECK(describe.out.find("STATUS:                  Succeeded") != std::string::npos);
  CHECK(describe.out.find("[Scheduled]") != std::string::npos);
  CHECK(describe.out.find("[Completed]") != std::string::npos);
  CHECK(describe.out.find("COMMAND LINE:            lanectl submit hello") != std::string::npos);
  auto yaml = l.run({"describe", "job", "hello", "-o", "yaml"});
  CHECK(yaml.out.find("status: Succeeded") != std::string::npos);

  auto del = l.run({"delete", "job", "hello"});
  CHECK(del.code == 0);
  CHECK(del.out == "Job hello deleted successfully.\n");
  auto again = l.run({"delete", "hello"});
  CHECK(again.code == 1);
  CHECK(again.err.find("Job hello does not exist in project default") != std::string::npos);
  CHECK(l.run({"list"}).out == "Showing jobs for project default\nNo jobs found.\n");
  CHECK(nlohmann::json::parse(l.run({"list", "-o", "json"}).out) ==
        nlohmann::json({{"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}}));
}

TEST_CASE("a failing command is reported as Failed with its exit code", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "fails", "-i", "x", "--command", "--", "/bin/sh", "-c", "exit 3"}).code == 0);
  auto doc = l.wait_status("fails", {"Succeeded", "Failed"});
  CHECK(doc.value("status", "") == "Failed");
  CHECK(doc["exitCode"] == 3);
  CHECK(doc["statusReason"].get<std::string>().find("exited with code 3") != std::string::npos);
}

TEST_CASE("deleting a running job stops its processes", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "sleeper", "-i", "x", "--command", "--", "/bin/sleep", "300"}).code == 0);
  auto doc = l.wait_status("sleeper", {"Running"});
  REQUIRE(doc.value("status", "") == "Running");
  REQUIRE(l.run({"delete", "sleeper"}).code == 0);
  // No `sleep 300` of ours survives (the supervisor kills the process group).
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = std::system(("pgrep -f '^/bin/sleep 300$' > /dev/null")) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(gone);
}
