// Volumes inside the job's private mount namespace: visible at the mount path, never written to
// the host's directory there, read-only when asked; a tmpfs /dev/shm. A stop: the grace period
// for every process of the job, MPI ranks stopped before mpirun, their output kept.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <thread>

#include "support/lanectl_runner.h"
#include "support/skip_case.h"

using lane::test::Lanectl;

namespace {

void check_volume_isolation(Lanectl& l, const std::string& mode) {
  l.set_env("LANECTL_SANDBOX", mode);
  std::string probe = "lanectl-probe-" + std::to_string(getpid()) + "-" + mode;
  REQUIRE(l.run({"submit", "writer", "-i", "x", "--pvc", ":1Mi:/mnt", "--large-shm", "--shm-size", "16Mi",
                 "--command", "--", "/bin/sh", "-c",
                 "echo data > /mnt/" + probe + " && df -k /dev/shm | tail -1"}).code == 0);
  auto w = l.wait_status("writer", {"Succeeded", "Failed"});
  auto logs = l.run({"logs", "writer"});
  INFO(logs.out);
  REQUIRE(w.value("status", "") == "Succeeded");
  CHECK(logs.out.find("16384") != std::string::npos);  // the 16Mi tmpfs
  // The file is in the backend's volume directory, not in the host's /mnt.
  CHECK(lane::test::slurp(l.home() / "volumes" / "pvc-writer-0" / probe) == "data\n");
  CHECK_FALSE(std::filesystem::exists("/mnt/" + probe));

  // Read-only mount of the existing claim: reading works, writing fails.
  REQUIRE(l.run({"submit", "reader", "-i", "x", "--pvc", "pvc-writer-0:/mnt:ro", "--command", "--", "/bin/sh", "-c",
                 "cat /mnt/" + probe + " && touch /mnt/new-file"}).code == 0);
  auto r = l.wait_status("reader", {"Succeeded", "Failed"});
  auto rlogs = l.run({"logs", "reader"});
  INFO(rlogs.out);
  CHECK(r.value("status", "") == "Failed");
  CHECK(rlogs.out.find("data") == 0);
  CHECK(rlogs.out.find("Read-only file system") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(l.home() / "volumes" / "pvc-writer-0" / "new-file"));
}

}  // namespace

TEST_CASE("pvc volumes are private to the job and :ro is enforced (unshare, as root)", "[local_backend][fast]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("the unshare sandbox needs root; the bwrap case covers non-root runs");
  }
  Lanectl l;
  check_volume_isolation(l, "unshare");
}

TEST_CASE("pvc volumes are private to the job and :ro is enforced (bubblewrap)", "[local_backend][fast]") {
  if (std::system("bwrap --dev-bind / / true > /dev/null 2>&1") != 0) {
    LANE_SKIP_CASE("bwrap is missing or cannot create namespaces in this container");
  }
  Lanectl l;
  check_volume_isolation(l, "bwrap");
}

namespace {

// Polls `logs NAME` until it holds every one of `lines` (20 s at most); returns the last log.
std::string wait_for_log_lines(Lanectl& l, const std::string& name, const std::vector<std::string>& lines) {
  std::string log;
  for (int i = 0; i < 100; ++i) {
    log = l.run({"logs", name}).out;
    bool all = true;
    for (const auto& line : lines) all = all && log.find(line) != std::string::npos;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return log;
}

// A process that saves its work on SIGTERM, for longer than mpirun waits for its ranks (2 s),
// and says so: a stop must give it the grace period and keep what it prints. Its `sleep 3`
// starts after the stop: a process started while saving is not stopped.
const char* kSaver =
    "trap \"sleep 3; echo saved > /data/$NAME; echo $NAME saved; exit 143\" TERM; echo $NAME up; "
    "while :; do sleep 0.1; done";

void check_stop_grace(Lanectl& l, const std::string& mode) {
  l.set_env("LANECTL_SANDBOX", mode);
  l.set_env("LANECTL_GRACE_SECONDS", "15");  // the default is 10; the tests' 2 is shorter than a save here
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  const std::string rank_saver = std::string("NAME=rank$OMPI_COMM_WORLD_RANK; ") + kSaver;
  REQUIRE(l.run({"submit-mpi", "dist", "-i", "x", "-g", "1", "--processes", "2", "--pvc", "data:/data", "--command",
                 "--", "/bin/sh", "-c", rank_saver}).code == 0);
  std::string log = wait_for_log_lines(l, "dist", {"rank0 up", "rank1 up"});
  REQUIRE(log.find("rank1 up") != std::string::npos);
  REQUIRE(l.run({"suspend", "dist"}).code == 0);
  log = wait_for_log_lines(l, "dist", {"rank0 saved", "rank1 saved"});
  INFO(log);
  // mpirun stopped first would have stopped relaying its ranks' output and SIGKILLed them 2 s later.
  CHECK(log.find("[1,0]<stdout>:rank0 saved") != std::string::npos);
  CHECK(log.find("[1,1]<stdout>:rank1 saved") != std::string::npos);
  CHECK(lane::test::slurp(l.home() / "volumes" / "data" / "rank0") == "saved\n");
  CHECK(lane::test::slurp(l.home() / "volumes" / "data" / "rank1") == "saved\n");

  REQUIRE(l.run({"submit", "single", "-i", "x", "-g", "1", "--pvc", "data:/data", "-e", "NAME=single", "--command",
                 "--", "/bin/sh", "-c", kSaver}).code == 0);
  REQUIRE(wait_for_log_lines(l, "single", {"single up"}).find("single up") != std::string::npos);
  REQUIRE(l.run({"suspend", "single"}).code == 0);
  log = wait_for_log_lines(l, "single", {"single saved"});
  INFO(log);
  CHECK(log.find("single saved") != std::string::npos);
  CHECK(lane::test::slurp(l.home() / "volumes" / "data" / "single") == "saved\n");
  CHECK(l.job("dist").value("status", "") == "Suspended");
}

}  // namespace

TEST_CASE("a stop gives every process of a job the grace period and stops MPI ranks before mpirun - unshare",
          "[local_backend][slow]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("the unshare sandbox needs root; the bwrap case covers non-root runs");
  }
  Lanectl l;
  check_stop_grace(l, "unshare");
}

TEST_CASE("a stop gives every process of a job the grace period and stops MPI ranks before mpirun - bubblewrap",
          "[local_backend][slow]") {
  if (std::system("bwrap --dev-bind / / true > /dev/null 2>&1") != 0) {
    LANE_SKIP_CASE("bwrap is missing or cannot create namespaces in this container");
  }
  Lanectl l;
  check_stop_grace(l, "bwrap");
}
