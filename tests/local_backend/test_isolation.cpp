// The escapes of issue 15 (items 1 and 2), each tried from inside a real job, with both sandbox
// mechanisms: another project's volume without --pvc, LANECTL_HOME/state.db (read, and a quota
// raised with sqlite3), another project's claim by name, the submitter's environment, running
// as root, the host's directories (the checkout included), and processes that leave the job's session (setsid) surviving
// delete or a SIGKILL of the supervisor. Every check looks at the host side (files, quota,
// processes), not only at what the job printed.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "submit/local/runtime/process_identity.h"
#include "support/lanectl_runner.h"
#include "local_backend/state_db_util.h"
#include "support/skip_case.h"
#include "local_backend/sandbox_modes.h"

using lane::test::Lanectl;
using lane::test::wait_until;
namespace fs = std::filesystem;

namespace {

std::string ended(Lanectl& l, const std::string& job, const std::string& project = "default") {
  return l.wait_status(job, {"Succeeded", "Failed"}, project).value("status", "");
}

double gpu_quota(Lanectl& l, const std::string& project) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((l.home() / "state.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT gpu_quota FROM projects WHERE name = ?1", -1, &st, nullptr);
  sqlite3_bind_text(st, 1, project.c_str(), -1, SQLITE_TRANSIENT);
  double q = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return q;
}

int64_t job_integer(Lanectl& l, const std::string& job, const std::string& column) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((l.home() / "state.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, ("SELECT " + column + " FROM jobs WHERE name = ?1").c_str(), -1, &st, nullptr);
  sqlite3_bind_text(st, 1, job.c_str(), -1, SQLITE_TRANSIENT);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

// Processes on the host whose command line is exactly `cmdline` (e.g. "sleep 77").
int count_processes(const std::string& cmdline) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string raw = lane::test::slurp(e.path() / "cmdline");
    for (auto& c : raw)
      if (c == '\0') c = ' ';
    if (!raw.empty() && raw.back() == ' ') raw.pop_back();
    std::string stat = lane::test::slurp(e.path() / "stat");
    if (raw == cmdline && stat.find(") Z ") == std::string::npos) ++n;
  }
  return n;
}

// Project b with a claim holding a file; project a exists too.
void two_projects(Lanectl& l) {
  for (const char* p : {"a", "b"}) {
    REQUIRE(l.run({"project", "create", p, "--gpu-quota", "1"}).code == 0);
    l.track_project(p);
  }
  REQUIRE(l.run({"submit", "bjob", "-p", "b", "-i", "x", "--pvc", ":1Mi:/data", "--command", "--", "/bin/sh", "-c",
                 "echo b-data > /data/secret"}).code == 0);
  REQUIRE(ended(l, "bjob", "b") == "Succeeded");
  REQUIRE(lane::test::slurp(l.home() / "volumes" / "pvc-bjob-0" / "secret") == "b-data\n");
}

}  // namespace

TEST_CASE("a job cannot mount another project's claim by name (exit 2 naming the claim, its project and the fix)", "[local_backend][fast]") {
  Lanectl l;
  two_projects(l);
  auto r = l.run({"submit", "ajob", "-p", "a", "-i", "x", "--pvc", "pvc-bjob-0:/data", "--command", "--", "/bin/cat",
                  "/data/secret"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("claim 'pvc-bjob-0' belongs to project 'b'") != std::string::npos);
  CHECK(r.err.find("-p b") != std::string::npos);
  CHECK(l.job("ajob", "a").empty());  // nothing was submitted
  auto dry = l.run({"submit", "ajob", "-p", "a", "-i", "x", "--pvc", "pvc-bjob-0:/data", "--dry-run", "--command",
                    "--", "/bin/true"});
  CHECK(dry.code == 2);
  // The owner's jobs still mount it.
  REQUIRE(l.run({"submit", "bjob2", "-p", "b", "-i", "x", "--pvc", "pvc-bjob-0:/data:ro", "--command", "--",
                 "/bin/cat", "/data/secret"}).code == 0);
  CHECK(ended(l, "bjob2", "b") == "Succeeded");
  CHECK(l.run({"logs", "bjob2", "-p", "b"}).out == "b-data\n");
}

TEST_CASE("a job sees neither other projects' volumes nor LANECTL_HOME: no read, no write, no quota change", "[local_backend][fast]") {
  Lanectl l;
  two_projects(l);
  const std::string home = l.home().string();
  const std::string secret = home + "/volumes/pvc-bjob-0/secret";
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "escape-" + mode;
    REQUIRE(l.run({"submit", job, "-p", "a", "-i", "x", "--command", "--", "/bin/sh", "-c",
                   "cat " + secret + "; echo overwritten > " + secret + "; ls " + home + "; cat " + home +
                       "/state.db | head -c 16; sqlite3 " + home +
                       "/state.db \"update projects set gpu_quota = 100 where name = 'a'\"; echo done"}).code == 0);
    REQUIRE(ended(l, job, "a") == "Succeeded");
    auto logs = l.run({"logs", job, "-p", "a"}).out;
    INFO(mode << ": " << logs);
    CHECK(lane::test::slurp(secret) == "b-data\n");  // not overwritten
    CHECK(gpu_quota(l, "a") == 1);                     // not raised
    CHECK(logs.find("b-data") == std::string::npos);   // not read
    CHECK(logs.find("SQLite format") == std::string::npos);
    CHECK(logs.find("No such file or directory") != std::string::npos);
    CHECK(logs.find("done") != std::string::npos);
  }
}

TEST_CASE("a job's environment holds only what the spec says: no LANECTL_HOME, nothing of the submitter's, no inherited files", "[local_backend][fast]") {
  Lanectl l;
  l.set_env("SUBMITTERS_SECRET", "do-not-leak");
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "env-" + mode;
    // Also what reaches the job besides its environment: open descriptors, PID 1's command line.
    REQUIRE(l.run({"submit", job, "-i", "x", "-e", "FROM_SPEC=yes", "--command", "--", "/bin/sh", "-c",
                   "env; readlink /proc/$$/fd/*; tr '\\0' ' ' < /proc/1/cmdline; echo"}).code == 0);
    REQUIRE(ended(l, job) == "Succeeded");
    auto logs = l.run({"logs", job}).out;
    INFO(mode << ": " << logs);
    CHECK(logs.find("FROM_SPEC=yes") != std::string::npos);
    CHECK(logs.find("LANECTL_JOB_NAME=" + job) != std::string::npos);
    CHECK(logs.find("LANECTL_HOME") == std::string::npos);
    CHECK(logs.find(l.home().string()) == std::string::npos);
    CHECK(logs.find("do-not-leak") == std::string::npos);
    CHECK(logs.find("OMPI_ALLOW_RUN_AS_ROOT") == std::string::npos);
    CHECK(logs.find("supervisor.log") == std::string::npos);
    CHECK(logs.find("state.db") == std::string::npos);
  }
}

TEST_CASE("a job runs as an unprivileged user on a read-only minimal root with private /tmp, /dev/shm and /proc", "[local_backend][fast]") {
  Lanectl l;
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "view-" + mode;
    REQUIRE(l.run({"submit", job, "-i", "x", "--pvc", ":1Mi:/data", "--shm-size", "8Mi", "--command", "--", "/bin/sh", "-c",
                   "echo uid=$(id -u); ls -d /root /home /var " + lane::test::source_dir().string() + " " + l.home().string() +
                       " 2>&1 | sed 's/^/seen:/'; touch /usr/x /etc/x /x 2>&1 | grep -cE 'Read-only|Permission denied' | sed 's/^/ro=/';"
                       " awk '$5 == \"/\" || $5 == \"/usr\" {print \"mnt:\" $5 \":\" substr($6, 1, 2)}' /proc/self/mountinfo;"
                       " echo t > /tmp/t && echo tmp-ok; echo d > /data/d && echo data-ok;"
                       " df -k /dev/shm | tail -1 | awk '{print \"shm=\" $2}'; ls -d /proc/[0-9]* | wc -l | sed 's/^/procs=/'"})
                .code == 0);
    REQUIRE(ended(l, job) == "Succeeded");
    auto logs = l.run({"logs", job}).out;
    INFO(mode << ": " << logs);
    if (geteuid() == 0) CHECK(logs.find("uid=0\n") == std::string::npos);
    CHECK(logs.find("uid=") != std::string::npos);
    for (const std::string& dir : std::vector<std::string>{"/root", "/home", "/var", lane::test::source_dir().string(), l.home().string()})
      CHECK(logs.find("seen:ls: cannot access '" + dir + "': No such file or directory") != std::string::npos);
    CHECK(logs.find("ro=3") != std::string::npos);  // nothing written to /usr, /etc, /
    CHECK(logs.find("mnt:/:ro") != std::string::npos);
    CHECK(logs.find("mnt:/usr:ro") != std::string::npos);
    CHECK(logs.find("mnt:/:rw") == std::string::npos);
    CHECK(logs.find("tmp-ok") != std::string::npos);
    CHECK(logs.find("data-ok") != std::string::npos);
    CHECK(logs.find("shm=8192") != std::string::npos);
    // Only the job's own processes: init, sh, ls (and bwrap's monitor).
    auto pos = logs.find("procs=");
    REQUIRE(pos != std::string::npos);
    CHECK(std::stoi(logs.substr(pos + 6)) <= 5);
  }
}

TEST_CASE("processes that leave the job's session (setsid) do not survive delete or a SIGKILL of the supervisor", "[local_backend][fast]") {
  Lanectl l;
  int n = 0;
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    for (const std::string how : {"delete", "kill-supervisor"}) {
      // A duration no other process on the machine uses, so that the count below is ours.
      const std::string survivor = "sleep " + std::to_string(7700 + getpid() % 1000 * 10 + n++);
      const std::string job = how + "-" + mode;
      REQUIRE(l.run({"submit", job, "-i", "x", "--command", "--", "/bin/sh", "-c", "setsid " + survivor + " & sleep 40"})
                  .code == 0);
      INFO(mode << " " << how << " " << survivor);
      REQUIRE(wait_until([&] { return count_processes(survivor) == 1; }, 10));
      if (how == "delete") {
        REQUIRE(l.run({"delete", job}).code == 0);
      } else {
        auto doc = l.job(job);
        REQUIRE(doc.value("status", "") == "Running");
        pid_t sup = static_cast<pid_t>(job_integer(l, job, "sup_pid"));
        REQUIRE(sup > 0);
        REQUIRE(kill(sup, SIGKILL) == 0);
        // Any command notices the lost supervisor and frees the job's GPUs: reality and the
        // scheduler's view agree.
        CHECK(wait_until([&] { return l.job(job).value("status", "") == "Failed"; }, 5));
      }
      CHECK(wait_until([&] { return count_processes(survivor) == 0; }, 5));
    }
  }
}

TEST_CASE("a state database of the previous version keeps working: claims get their project, unknown ones are adopted", "[local_backend][fast]") {
  Lanectl l;
  {
    // The volumes table as the previous version wrote it (no project column).
    lane::test::run_sql(l.home() / "state.db",
                        "CREATE TABLE volumes(name TEXT PRIMARY KEY, size TEXT NOT NULL, size_bytes INTEGER NOT NULL,"
                        " storage_class TEXT NOT NULL, created_by TEXT NOT NULL, created_ms INTEGER NOT NULL);"
                        "INSERT INTO volumes VALUES('pvc-old-0','1Mi',1048576,'','job/b/old',1);"
                        "INSERT INTO volumes VALUES('shared-data','1Mi',1048576,'','user',1);");
    for (const char* v : {"pvc-old-0", "shared-data"}) fs::create_directories(l.home() / "volumes" / v);
  }
  for (const char* p : {"a", "b"}) {
    REQUIRE(l.run({"project", "create", p, "--gpu-quota", "1"}).code == 0);
    l.track_project(p);
  }
  // A claim a job of project b created belongs to b.
  auto r = l.run({"submit", "j1", "-p", "a", "-i", "x", "--pvc", "pvc-old-0:/data", "--command", "--", "/bin/true"});
  CHECK(r.code == 2);
  CHECK(r.err.find("belongs to project 'b'") != std::string::npos);
  REQUIRE(l.run({"submit", "j2", "-p", "b", "-i", "x", "--pvc", "pvc-old-0:/data", "--command", "--", "/bin/true"}).code == 0);
  CHECK(ended(l, "j2", "b") == "Succeeded");
  // A claim of unknown origin is adopted by the first project that mounts it, then kept.
  REQUIRE(l.run({"submit", "j3", "-p", "a", "-i", "x", "--pvc", "shared-data:/data", "--command", "--", "/bin/true"}).code == 0);
  CHECK(ended(l, "j3", "a") == "Succeeded");
  auto events = l.job("j3", "a")["events"];
  bool adopted = false;
  for (const auto& e : events) adopted = adopted || e.value("reason", "") == "ClaimAdopted";
  CHECK(adopted);
  auto r4 = l.run({"submit", "j4", "-p", "b", "-i", "x", "--pvc", "shared-data:/data", "--command", "--", "/bin/true"});
  CHECK(r4.code == 2);
  CHECK(r4.err.find("belongs to project 'a'") != std::string::npos);
}

TEST_CASE("a -v host directory never shows LANECTL_HOME: inside it is refused, above it the state is masked", "[local_backend][fast]") {
  Lanectl l;
  auto inside = l.run({"submit", "v1", "-i", "x", "-v", l.home().string() + ":/state", "--command", "--", "/bin/true"});
  CHECK(inside.code == 2);
  CHECK(inside.err.find("inside LANECTL_HOME") != std::string::npos);
  // /tmp holds the test's LANECTL_HOME (/tmp/lanectl-test-XXXXXX).
  const std::string name = l.home().filename().string();
  REQUIRE(l.run({"submit", "v2", "-i", "x", "-v", l.home().parent_path().string() + ":/host-tmp:ro", "--command", "--",
                 "/bin/sh", "-c", "ls -A /host-tmp/" + name + " | wc -l; ls /host-tmp/" + name + "/state.db; true"})
              .code == 0);
  REQUIRE(ended(l, "v2") == "Succeeded");
  auto logs = l.run({"logs", "v2"}).out;
  INFO(logs);
  CHECK(logs.rfind("0\n", 0) == 0);
  CHECK(logs.find("No such file or directory") != std::string::npos);
}

TEST_CASE("run by a non-root user, a job runs as that user in the same confined view (bubblewrap)", "[local_backend][fast]") {
  if (geteuid() != 0 || !lane::test::bwrap_works()) {
    LANE_SKIP_CASE("needs root (to become another user) and bubblewrap; as a non-root user the other cases cover it");
  }
  char tmpl[] = "/tmp/lanectl-nobody-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  const fs::path dir = tmpl;
  REQUIRE(chown(dir.c_str(), 65534, 65534) == 0);
  const std::string lanectl = (lane::test::bin_dir() / "lanectl").string();
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin LANECTL_HOME=" +
                                (dir / "home").string() + " " + lanectl + " ";
  auto run = [&](const std::string& args) {
    std::string out;
    if (FILE* p = popen((as_nobody + args + " 2>&1").c_str(), "r")) {
      char buf[4096];
      for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
      pclose(p);
    }
    return out;
  };
  if (std::system((as_nobody + "--help > /dev/null 2>&1").c_str()) != 0) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    LANE_SKIP_CASE("user nobody cannot run " << lanectl << " (the checkout is not readable by others)");
  }
  const std::string survivor = "sleep " + std::to_string(8800 + getpid() % 1000);
  run("submit n1 -i x --pvc :1Mi:/data --command -- sh -c 'id -u; touch /data/f && echo data-ok; ls /root " +
      dir.string() + " 2>&1; setsid " + survivor + " & sleep 30'");
  CHECK(wait_until([&] { return count_processes(survivor) == 1; }, 10));
  auto logs = run("logs n1");
  INFO(logs);
  CHECK(logs.rfind("65534\n", 0) == 0);
  CHECK(logs.find("data-ok") != std::string::npos);
  CHECK(logs.find("cannot access '/root'") != std::string::npos);
  CHECK(logs.find("cannot access '" + dir.string() + "'") != std::string::npos);
  run("delete n1");
  CHECK(wait_until([&] { return count_processes(survivor) == 0; }, 5));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the supervisor closes the database
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("lanectl exec runs inside the job's namespaces as the job's user with the job's environment", "[local_backend][fast]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("exec into a job needs root");
  }
  Lanectl l;
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "exec-" + mode;
    REQUIRE(l.run({"submit", job, "-i", "x", "-e", "FROM_SPEC=yes", "--command", "--", "/bin/sleep", "30"}).code == 0);
    REQUIRE(l.wait_status(job, {"Running"}).value("status", "") == "Running");
    // The job's init records its pid just after the start; exec needs it.
    REQUIRE(wait_until([&] { return job_integer(l, job, "child_pgid") > 0; }, 5));
    auto r = l.run({"exec", job, "--", "/bin/sh", "-c",
                    "echo uid=$(id -u) spec=$FROM_SPEC home=${LANECTL_HOME-unset}; ls -d /proc/[0-9]* | wc -l; "
                    "ls -d /root 2>&1; exit 7"});
    INFO(mode << ": " << r.out << r.err);
    CHECK(r.code == 7);  // the command's exit status
    CHECK(r.out.find("uid=0 ") == std::string::npos);
    CHECK(r.out.find("spec=yes home=unset") != std::string::npos);
    CHECK(r.out.find("cannot access '/root'") != std::string::npos);
    // --pod names one of the job's pods (they share the sandbox); another is a usage error.
    CHECK(l.run({"exec", job, "--pod", job + "-0", "--", "/bin/true"}).code == 0);
    auto bad = l.run({"exec", job, "--pod", "nope", "--", "/bin/echo", "ran-in-nope"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--pod nope: job '" + job + "' has no such pod") != std::string::npos);
    CHECK(bad.out.find("ran-in-nope") == std::string::npos);
    REQUIRE(l.run({"delete", job}).code == 0);
  }
}

TEST_CASE("exec on a job whose processes just ended, or that has ended, says so", "[local_backend][slow]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("exec into a job needs root");
  }
  Lanectl l;
  REQUIRE(l.run({"submit", "ends", "-i", "x", "--command", "--", "/bin/sleep", "30"}).code == 0);
  REQUIRE(l.wait_status("ends", {"Running"}).value("status", "") == "Running");
  REQUIRE(wait_until([&] { return job_integer(l, "ends", "child_pgid") > 0; }, 5));
  const auto sup = static_cast<pid_t>(job_integer(l, "ends", "sup_pid"));
  const auto pgid = static_cast<pid_t>(job_integer(l, "ends", "child_pgid"));
  REQUIRE(sup > 0);
  // The supervisor is held still, so the state still says Running after the job's processes die.
  REQUIRE(kill(sup, SIGSTOP) == 0);
  REQUIRE(kill(-pgid, SIGKILL) == 0);
  // It stays a zombie until the supervisor reaps it (process_start_time is 0 for a zombie too).
  CHECK(wait_until([&] { return lane::submit::local::process_start_time(pgid) == 0; }, 5));
  auto r = l.run({"exec", "ends", "--", "/bin/true"});
  kill(sup, SIGCONT);
  INFO(r.out << r.err);
  CHECK(r.code != 0);
  CHECK(r.err.find("job 'ends' has just ended; exec needs a running job") != std::string::npos);
  CHECK(r.err.find("is Running, not running") == std::string::npos);
  REQUIRE(l.wait_status("ends", {"Failed", "Succeeded"}).value("status", "") == "Failed");
  r = l.run({"exec", "ends", "--", "/bin/true"});
  CHECK(r.code != 0);
  CHECK(r.err.find("job 'ends' is Failed, not running; exec needs a running job") != std::string::npos);
}
