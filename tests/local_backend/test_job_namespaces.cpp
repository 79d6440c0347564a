// open_job_namespaces (runtime/sandbox.h), which `lanectl exec` joins: a process is accepted only
// by its pid AND start time, only once it is in namespaces other than the host's and has started
// its command; and what comes back are that process's namespaces.
#include <catch2/catch.hpp>

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>

#include "common/error.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/runtime/sandbox.h"
#include "support/skip_case.h"

using namespace lane::submit::local;

namespace {

ino_t namespace_inode(const std::string& path) {
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

ino_t namespace_inode(int fd) {
  struct stat st {};
  REQUIRE(fstat(fd, &st) == 0);
  return st.st_ino;
}

void end(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("exec's namespaces: never a host process's, never a pid whose start time differs", "[local_backend][slow]") {
  const pid_t host_process = fork();
  if (host_process == 0) {
    pause();
    _exit(0);
  }
  REQUIRE(host_process > 0);
  long long start = 0;
  for (int i = 0; i < 100 && start == 0; ++i) {
    start = process_start_time(host_process);
    if (start == 0) usleep(10'000);
  }
  REQUIRE(start > 0);
  // Another process's start time (a reused pid): refused at once.
  double took = seconds_of([&] { CHECK_THROWS_AS(open_job_namespaces(host_process, start + 1), lane::Error); });
  CHECK(took < 1.0);
  // The right process, but in the host's namespaces: refused after the wait for a job's.
  CHECK_THROWS_WITH(open_job_namespaces(host_process, start), Catch::Contains("not ready or gone"));
  end(host_process);
  took = seconds_of([&] { CHECK_THROWS_AS(open_job_namespaces(host_process, start), lane::Error); });
  CHECK(took < 1.0);
}

TEST_CASE("exec's namespaces: a job's PID 1 is taken once it has started its command, and its namespaces come back", "[local_backend][slow]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("new mount and PID namespaces need root");
  }
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  // A stand-in for the sandbox's init: new mount and PID namespaces; it starts its "command"
  // only when the test says so.
  const auto init = static_cast<pid_t>(syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  if (init == 0) {
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) == 1 && fork() == 0) {
      pause();
      _exit(0);
    }
    pause();
    _exit(0);
  }
  REQUIRE(init > 0);
  close(ready[0]);
  long long start = 0;
  for (int i = 0; i < 100 && start == 0; ++i) {
    start = process_start_time(init);
    if (start == 0) usleep(10'000);
  }
  REQUIRE(start > 0);
  // No command yet: the root may still be under construction; not taken.
  CHECK_THROWS_WITH(open_job_namespaces(init, start), Catch::Contains("not ready or gone"));
  REQUIRE(write(ready[1], "x", 1) == 1);
  close(ready[1]);
  const JobNamespaces ns = open_job_namespaces(init, start);
  CHECK(namespace_inode(ns.mnt.get()) == namespace_inode("/proc/" + std::to_string(init) + "/ns/mnt"));
  CHECK(namespace_inode(ns.mnt.get()) != namespace_inode("/proc/self/ns/mnt"));
  CHECK(namespace_inode(ns.pid.get()) == namespace_inode("/proc/" + std::to_string(init) + "/ns/pid"));
  CHECK(namespace_inode(ns.net.get()) == namespace_inode("/proc/" + std::to_string(init) + "/ns/net"));
  end(init);  // PID 1's end ends its command
}
