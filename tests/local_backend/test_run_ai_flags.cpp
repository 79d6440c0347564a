// The Run:AI flags of issue 17 on the local backend: what each one means here (preemptibility,
// --backoff-limit retries, --ttl-after-finish, --attach), and the note for those that mean
// nothing locally (docs/cli.md, "Run:AI flags and their local meaning").
#include <catch2/catch.hpp>

#include "support/lanectl_runner.h"
#include "local_backend/state_db_util.h"

using lane::test::Lanectl;

namespace {

int count_events(const nlohmann::json& job, const std::string& reason) {
  int n = 0;
  for (const auto& e : job.value("events", nlohmann::json::array())) n += e.value("reason", "") == reason;
  return n;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("local: --interactive --preemptible is preempted like training, --non-preemptible stays within quota", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  REQUIRE(l.run({"project", "create", "team-a", "--gpu-quota", "1"}).code == 0);
  REQUIRE(l.run({"project", "create", "team-b", "--gpu-quota", "1"}).code == 0);
  l.track_project("team-a");
  l.track_project("team-b");
  auto submit = [&](std::vector<std::string> args) {
    for (const char* a : {"-i", "x", "--command", "--", "/bin/sleep", "300"}) args.push_back(a);
    return l.run(args);
  };
  // A plain interactive job must fit in the quota; a preemptible one may go over it.
  auto r = submit({"submit", "shell-1", "-p", "team-a", "--interactive", "-g", "2"});
  CHECK(r.code == 2);
  CHECK(r.err.find("interactive jobs must fit within the project's quota") != std::string::npos);
  r = submit({"submit", "shell-1", "-p", "team-a", "--interactive", "--preemptible", "-g", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(l.wait_status("shell-1", {"Running"}, "team-a").value("status", "") == "Running");
  auto list = l.run({"list", "-p", "team-a"});
  CHECK(list.out.find("Interactive-Preemptible") != std::string::npos);
  CHECK(l.run({"describe", "job", "shell-1", "-p", "team-a"}).out.find("PREEMPTIBLE:             true") !=
        std::string::npos);

  // team-b claims its quota: the preemptible interactive job (over quota) is preempted.
  REQUIRE(submit({"submit", "b1", "-p", "team-b", "-g", "1"}).code == 0);
  CHECK(l.wait_status("b1", {"Running"}, "team-b").value("status", "") == "Running");
  auto shell = l.job("shell-1", "team-a");
  CHECK(shell.value("status", "") == "Pending");
  CHECK(count_events(shell, "Preempted") == 1);
  REQUIRE(l.run({"delete", "job", "shell-1", "-p", "team-a"}).code == 0);

  REQUIRE(l.run({"delete", "job", "b1", "-p", "team-b"}).code == 0);

  // A non-preemptible training job beyond the quota is refused, and it never goes over the quota
  // even when GPUs are free; a plain training job does.
  r = submit({"submit", "steady", "-p", "team-a", "--non-preemptible", "-g", "2"});
  CHECK(r.code == 2);
  CHECK(r.err.find("non-preemptible jobs must fit within the project's quota") != std::string::npos);
  REQUIRE(submit({"submit", "steady", "-p", "team-a", "--non-preemptible", "-g", "1"}).code == 0);
  CHECK(l.wait_status("steady", {"Running"}, "team-a").value("status", "") == "Running");
  REQUIRE(submit({"submit", "steady-2", "-p", "team-a", "--non-preemptible", "-g", "1"}).code == 0);
  auto steady2 = l.job("steady-2", "team-a");
  CHECK(steady2.value("status", "") == "Pending");  // one GPU is free, but not within the quota
  CHECK(steady2.value("statusReason", "").find("non-preemptible jobs must fit within the quota") != std::string::npos);
  REQUIRE(submit({"submit", "over", "-p", "team-a", "-g", "1"}).code == 0);
  CHECK(l.wait_status("over", {"Running"}, "team-a").value("status", "") == "Running");
}

TEST_CASE("local: --backoff-limit retries a failed job up to the limit, --completions runs it N times", "[local_backend][slow]") {
  Lanectl l;
  // Fails on the first run, succeeds on the second (the claim keeps the marker across attempts).
  auto r = l.run({"submit", "flaky", "-i", "x", "--backoff-limit", "3", "--pvc", ":1Mi:/data", "--command", "--",
                  "/bin/sh", "-c", "if [ -e /data/ran ]; then echo second; exit 0; fi; touch /data/ran; exit 4"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto flaky = l.wait_status("flaky", {"Succeeded", "Failed"});
  CHECK(flaky.value("status", "") == "Succeeded");
  CHECK(count_events(flaky, "BackoffRetry") == 1);
  CHECK(l.run({"logs", "flaky"}).out == "second\n");

  // Always failing with --backoff-limit 1: one retry, then Failed with the exit code.
  REQUIRE(l.run({"submit", "broken", "-i", "x", "--backoffLimit", "1", "--command", "--", "/bin/sh", "-c",
                 "echo try; exit 3"}).code == 0);
  auto broken = l.wait_status("broken", {"Succeeded", "Failed"});
  CHECK(broken.value("status", "") == "Failed");
  CHECK(broken["exitCode"] == 3);
  CHECK(count_events(broken, "BackoffRetry") == 1);
  CHECK(l.run({"describe", "job", "broken"}).out.find("BACKOFF LIMIT:           1") != std::string::npos);

  // --completions 3: three successful runs, one after the other, then Succeeded.
  REQUIRE(l.run({"submit", "thrice", "-i", "x", "--completions", "3", "--command", "--", "/bin/sh", "-c",
                 "echo run"}).code == 0);
  auto thrice = l.wait_status("thrice", {"Succeeded", "Failed"});
  CHECK(thrice.value("status", "") == "Succeeded");
  CHECK(count_events(thrice, "RunSucceeded") == 2);
  CHECK(l.run({"logs", "thrice"}).out == "run\nrun\nrun\n");

  // Without the flag the local backend does not retry.
  REQUIRE(l.run({"submit", "once", "-i", "x", "--command", "--", "/bin/false"}).code == 0);
  auto once = l.wait_status("once", {"Succeeded", "Failed"});
  CHECK(once.value("status", "") == "Failed");
  CHECK(count_events(once, "BackoffRetry") == 0);
}

TEST_CASE("local: --ttl-after-finish deletes a finished job once its TTL has passed", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "short-lived", "-i", "x", "--ttl-after-finish", "0s", "--command", "--", "/bin/true"})
              .code == 0);
  REQUIRE(l.run({"submit", "kept", "-i", "x", "--ttl-after-finish", "1h", "--command", "--", "/bin/true"}).code == 0);
  CHECK(l.wait_status("kept", {"Succeeded"}).value("status", "") == "Succeeded");
  // The supervisor deletes a job with TTL 0 when it records the job's end.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = l.run({"describe", "job", "short-lived"}).code != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(gone);
  auto list = l.run({"list"});
  CHECK(list.out.find("short-lived") == std::string::npos);
  CHECK(list.out.find("kept") != std::string::npos);  // its hour has not passed
  CHECK(l.job("kept")["spec"]["ttlSecondsAfterFinished"] == 3600);
}

TEST_CASE("local: --attach waits for the job and follows its output, --local-image just works", "[local_backend][slow]") {
  Lanectl l;
  auto r = l.run({"submit", "attached", "-i", "x", "--attach", "--local-image", "--command", "--", "/bin/sh", "-c",
                  "echo hello from the job; sleep 1; echo done"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out == "The job 'attached' has been submitted successfully\n"
                 "You can run `lanectl describe job attached -p default` to check the job status\n"
                 "hello from the job\ndone\n");
  // One note about stdin and the terminal, from the attach (not a second one from the flags).
  CHECK(count_of(r.err, "does not forward stdin or a terminal") == 1);
  CHECK(r.err.find("--tty/--stdin") == std::string::npos);
  CHECK(r.err.find("--local-image") == std::string::npos);  // Never is what the local backend does
  CHECK(r.err.find("Waiting for job 'attached' to start; then its output follows") != std::string::npos);
  // The job's exit code is submit's, as with `lanectl attach`.
  auto failing = l.run({"submit", "attached-fails", "-i", "x", "--attach", "--command", "--", "/bin/sh", "-c", "exit 3"});
  CHECK(failing.code == 3);
  CHECK(l.job("attached")["spec"]["imagePullPolicy"] == "Never");
}

TEST_CASE("local: flags without a local meaning are accepted, recorded and noted once", "[local_backend][fast]") {
  Lanectl l;
  auto r = l.run({"submit", "noted", "-i", "x", "--toleration", "gpu:NoSchedule", "--toleration", "pool=a:NoExecute",
                  "--node-pool", "a100", "--image-pull-policy", "Always", "--cpu-limit", "2", "--memory-limit", "1Gi",
                  "--host-ipc", "--run-as-user", "--completions", "2", "--parallelism", "2", "--command", "--",
                  "/bin/true"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* flag : {"--toleration", "--node-pool", "--image-pull-policy Always", "--cpu-limit/--memory-limit",
                           "--host-ipc", "--run-as-user", "--parallelism"})
    CHECK(count_of(r.err, std::string("note: ") + flag + " has no effect on the local backend") == 1);
  CHECK(count_of(r.err, "note:") == 7);
  auto describe = l.run({"describe", "job", "noted"});
  CHECK(describe.out.find("TOLERATIONS:             gpu:NoSchedule,pool=a:NoExecute") != std::string::npos);
  CHECK(describe.out.find("NODE POOL:               a100") != std::string::npos);
  CHECK(describe.out.find("CPU LIMIT:               2") != std::string::npos);
  CHECK(describe.out.find("HOST IPC:                true") != std::string::npos);
  auto dry = l.run({"submit", "dry", "-i", "x", "--node-pool", "a100", "--dry-run", "--command", "--", "/bin/true"});
  CHECK(dry.out.find("nodePool: a100") != std::string::npos);
  CHECK(count_of(dry.err, "note: --node-pool") == 1);
}

TEST_CASE("local: --mig, --elastic and --create-home-dir are noted, --prevent-privilege-escalation holds anyway", "[local_backend][fast]") {
  Lanectl l;
  auto r = l.run({"submit", "sliced", "-i", "x", "--mig", "1g.5gb", "--elastic", "--create-home-dir",
                  "--prevent-privilege-escalation", "--command", "--", "/bin/sh", "-c",
                  "grep NoNewPrivs /proc/self/status"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* flag : {"--mig", "--elastic", "--create-home-dir"})
    CHECK(count_of(r.err, std::string("note: ") + flag + " has no effect on the local backend") == 1);
  CHECK(count_of(r.err, "note:") == 3);  // none for --prevent-privilege-escalation: it is honoured
  auto doc = l.wait_status("sliced", {"Succeeded", "Failed"});
  CHECK(doc.value("status", "") == "Succeeded");
  // The job cannot gain privileges: the kernel's no_new_privs bit is set on its processes.
  auto logs = l.run({"logs", "sliced"});
  CHECK(logs.out.find("NoNewPrivs:\t1") != std::string::npos);
  CHECK(doc["gpusRequested"] == 0);  // a MIG slice means no GPU on this backend
  auto describe = l.run({"describe", "job", "sliced"});
  CHECK(describe.out.find("MIG PROFILE:             1g.5gb") != std::string::npos);
  CHECK(describe.out.find("NO PRIVILEGE ESCALATION: true") != std::string::npos);
}

TEST_CASE("local: a jobs table of the previous version gets the new columns, its jobs keep their meaning", "[local_backend][fast]") {
  Lanectl l;
  {
    // The jobs table as the previous version wrote it (no preemptible, no ttl_seconds), with a
    // finished interactive job whose stored spec has none of the new fields.
    lane::test::run_sql(l.home() / "state.db",
                        "CREATE TABLE jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL, name TEXT NOT "
                        "NULL, type TEXT NOT NULL, image TEXT NOT NULL, user TEXT NOT NULL, gpu REAL NOT NULL, pods "
                        "INTEGER NOT NULL, spec TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', "
                        "placement TEXT NOT NULL DEFAULT '[]', attempt INTEGER NOT NULL DEFAULT 0, preemptions INTEGER "
                        "NOT NULL DEFAULT 0, sup_pid INTEGER NOT NULL DEFAULT 0, sup_start INTEGER NOT NULL DEFAULT 0, "
                        "child_pgid INTEGER NOT NULL DEFAULT 0, child_start INTEGER NOT NULL DEFAULT 0, exit_code "
                        "INTEGER, created_ms INTEGER NOT NULL, started_ms INTEGER NOT NULL DEFAULT 0, finished_ms "
                        "INTEGER NOT NULL DEFAULT 0, alloc REAL NOT NULL DEFAULT 0, nodes TEXT NOT NULL DEFAULT '', "
                        "UNIQUE(project, name));"
                        "INSERT INTO jobs(project, name, type, image, user, gpu, pods, spec, status, exit_code, "
                        "created_ms, started_ms, finished_ms) VALUES('default', 'old-shell', 'Interactive', 'x', 'u', 0, "
                        "1, '{\"name\":\"old-shell\",\"project\":\"default\",\"type\":\"Interactive\",\"image\":\"x\"}', "
                        "'Succeeded', 0, 1000, 2000, 3000);");
  }
  auto list = l.run({"list"});
  INFO(list.err);
  REQUIRE(list.code == 0);
  CHECK(list.out.find("old-shell  Succeeded") != std::string::npos);
  CHECK(list.out.find("Interactive-Preemptible") == std::string::npos);  // NULL: by type
  auto old = l.job("old-shell");
  CHECK(old["type"] == "Interactive");
  CHECK_FALSE(old["spec"].contains("preemptibility"));
  CHECK(l.run({"describe", "job", "old-shell"}).out.find("PREEMPTIBLE:") == std::string::npos);
  // New jobs use the new columns in the migrated table.
  REQUIRE(l.run({"submit", "new-shell", "-i", "x", "--interactive", "--preemptible", "--ttl-after-finish", "1h",
                 "--command", "--", "/bin/true"}).code == 0);
  CHECK(l.wait_status("new-shell", {"Succeeded"}).value("type", "") == "Interactive-Preemptible");
}
