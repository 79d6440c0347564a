// The cgroup code on a fake cgroup root (a plain directory): which files the job's group and the
// freezer write under cgroup v2 and under v1, so that the v2 path is covered on a v1 host (and
// the reverse). The kernel creates a group's files at mkdir; here the test makes them first.
// One case, as root, freezes a real group of this host's kernel.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "submit/local/runtime/cgroup_freezer.h"
#include "submit/local/runtime/job_cgroup.h"
#include "support/lanectl_runner.h"
#include "support/skip_case.h"

using namespace lane::submit::local;
using lane::test::slurp;
namespace fs = std::filesystem;

namespace {

struct FakeRoot {
  fs::path dir;
  FakeRoot() {
    char tmpl[] = "/tmp/lanectl-cgroot-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // A group directory with these files, each holding `value`.
  void group(const fs::path& rel, std::initializer_list<std::pair<const char*, const char*>> files) const {
    fs::create_directories(dir / rel);
    for (const auto& [name, value] : files) std::ofstream(dir / rel / name) << value;
  }
};

}  // namespace

TEST_CASE("a job's cgroup v2 group gets its limits in memory.max, memory.swap.max, cpu.max and pids.max", "[reliability][fast]") {
  if (geteuid() != 0) LANE_SKIP_CASE("JobCgroup makes no group without root");
  FakeRoot root;
  root.group("", {{"cgroup.controllers", "cpu memory pids"}, {"cgroup.subtree_control", ""}});
  root.group("lanectl/s1-job7", {{"cgroup.procs", ""}, {"memory.max", "max"}, {"memory.swap.max", "max"},
                                 {"cpu.max", "max 100000"}, {"pids.max", "max"}, {"cgroup.freeze", "0"}});
  JobCgroup g = JobCgroup::create(job_cgroup_name(1, 7), {100 << 20, 1.5, 64}, root.dir);
  CHECK(g.version() == "v2");
  const fs::path d = root.dir / "lanectl/s1-job7";
  CHECK(slurp(d / "memory.max") == std::to_string(100 << 20));
  CHECK(slurp(d / "memory.swap.max") == "0ax");  // "0" written over "max" (no truncation, as in cgroupfs)
  CHECK(slurp(d / "cpu.max").rfind("150000 100000", 0) == 0);
  CHECK(slurp(d / "pids.max").rfind("64", 0) == 0);
  CHECK(g.procs_files() == std::vector<std::string>{(d / "cgroup.procs").string()});
  CHECK(existing_job_cgroups("s1-job7", root.dir) == std::vector<std::string>{d.string()});
  CHECK(job_freezer("s1-job7", root.dir) == d.string());
  CHECK(job_freezer("s2-job7", root.dir).empty());
}

TEST_CASE("a job's v1 groups are one per controller, the freezer among them", "[reliability][fast]") {
  if (geteuid() != 0) LANE_SKIP_CASE("JobCgroup makes no group without root");
  FakeRoot root;
  for (const char* c : {"memory", "cpu", "pids", "freezer"}) root.group(c, {{"cgroup.procs", ""}});
  root.group("memory/lanectl/s1-job7", {{"cgroup.procs", ""}, {"memory.limit_in_bytes", "9223372036854771712"}});
  root.group("cpu/lanectl/s1-job7", {{"cgroup.procs", ""}, {"cpu.cfs_quota_us", "-1"}});
  root.group("pids/lanectl/s1-job7", {{"cgroup.procs", ""}, {"pids.max", "max"}});
  root.group("freezer/lanectl/s1-job7", {{"cgroup.procs", ""}, {"freezer.state", "THAWED"}});
  JobCgroup g = JobCgroup::create(job_cgroup_name(1, 7), {100 << 20, 0.5, 64}, root.dir);
  CHECK(g.version() == "v1");
  CHECK(g.procs_files().size() == 4);
  CHECK(slurp(root.dir / "memory/lanectl/s1-job7/memory.limit_in_bytes").rfind(std::to_string(100 << 20), 0) == 0);
  CHECK(slurp(root.dir / "cpu/lanectl/s1-job7/cpu.cfs_quota_us").rfind("50000", 0) == 0);
  CHECK(existing_job_cgroups("s1-job7", root.dir).size() == 4);
  CHECK(job_freezer("s1-job7", root.dir) == (root.dir / "freezer/lanectl/s1-job7").string());
}

TEST_CASE("the freezer writes cgroup.freeze (v2) or freezer.state (v1), waits for frozen and thaws on destruction", "[reliability][fast]") {
  FakeRoot root;
  root.group("v2", {{"cgroup.procs", ""}, {"cgroup.freeze", "0"}, {"cgroup.events", "populated 1\nfrozen 1\n"}});
  root.group("v1", {{"cgroup.procs", ""}, {"freezer.state", "THAWED"}});
  const std::string v2 = (root.dir / "v2").string(), v1 = (root.dir / "v1").string();
  {
    FrozenCgroups frozen;
    frozen.freeze(v2);
    frozen.freeze(v1);
    CHECK(slurp(root.dir / "v2/cgroup.freeze") == "1");
    CHECK(slurp(root.dir / "v1/freezer.state") == "FROZEN");
    CHECK(frozen.frozen().size() == 2);
  }
  CHECK(slurp(root.dir / "v2/cgroup.freeze") == "0");
  CHECK(slurp(root.dir / "v1/freezer.state") == "THAWED");
}

TEST_CASE("a group that does not freeze in time is thawed again and named in the error", "[reliability][fast]") {
  FakeRoot root;
  root.group("stuck", {{"cgroup.procs", "42\n"}, {"cgroup.freeze", "0"}, {"cgroup.events", "populated 1\nfrozen 0\n"}});
  FrozenCgroups frozen(std::chrono::milliseconds(50));
  CHECK_THROWS_WITH(frozen.freeze((root.dir / "stuck").string()), Catch::Contains("did not freeze within 50 ms"));
  CHECK(slurp(root.dir / "stuck/cgroup.freeze") == "0");
  CHECK(frozen.frozen().empty());
  CHECK(cgroup_populated((root.dir / "stuck").string()));
  CHECK(in_freezer((root.dir / "stuck").string(), 42));
  CHECK_FALSE(in_freezer((root.dir / "stuck").string(), 43));
}

TEST_CASE("a thaw that fails is reported with the command that thaws the group", "[reliability][fast]") {
  FakeRoot root;
  root.group("g", {{"cgroup.procs", ""}, {"freezer.state", "THAWED"}});
  FrozenCgroups frozen;
  frozen.freeze((root.dir / "g").string());
  fs::remove(root.dir / "g/freezer.state");  // the control file is gone: the thaw cannot be written
  const auto failed = frozen.thaw();
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0], Catch::Contains("cannot thaw the cgroup") && Catch::Contains("echo THAWED >"));
}

namespace {

// A group of this host holding one process that vforks and execs /bin/true in a loop, as a shell
// running external commands does. The process is killed and reaped, and the group removed, however
// the case ends: a failed REQUIRE must not leave it looping.
struct VforkLoop {
  explicit VforkLoop(fs::path dir) : group(std::move(dir)) {
    REQUIRE(fs::create_directory(group));
    int joined[2];
    REQUIRE(pipe(joined) == 0);
    looper = fork();
    if (looper == 0) {
      close(joined[0]);
      std::ofstream(group / "cgroup.procs") << "0" << std::flush;
      (void)!write(joined[1], "x", 1);
      for (;;) {
        const pid_t child = vfork();
        if (child == 0) {
          execl("/bin/true", "true", static_cast<char*>(nullptr));
          _exit(127);
        }
        waitpid(child, nullptr, 0);
      }
    }
    close(joined[1]);
    char c;
    const bool started = looper > 0 && read(joined[0], &c, 1) == 1;
    close(joined[0]);
    REQUIRE(started);
  }
  ~VforkLoop() {
    if (looper > 0) {
      kill(looper, SIGKILL);
      waitpid(looper, nullptr, 0);
    }
    for (int i = 0; i < 100 && ::rmdir(group.c_str()) != 0; ++i) usleep(20'000);
  }
  fs::path group;
  pid_t looper = -1;
};

}  // namespace

TEST_CASE("a real group whose process vforks all the time is frozen every time", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("making a cgroup needs root");
  const fs::path base("/sys/fs/cgroup");
  const bool v2 = fs::exists(base / "cgroup.controllers");
  if (!v2 && !fs::exists(base / "freezer/cgroup.procs")) LANE_SKIP_CASE("this host has neither cgroup v2 nor the v1 freezer");
  // On cgroup v1 a freeze that catches the child between vfork and exec never completes by itself.
  VforkLoop loop((v2 ? base : base / "freezer") / ("lanectl-test-vfork-" + std::to_string(getpid())));
  const std::string group = loop.group.string();
  REQUIRE(in_freezer(group, loop.looper));
  int frozen_times = 0;
  for (int i = 0; i < 200; ++i) {
    {
      FrozenCgroups frozen;  // the timeout snapshots use (5 s)
      try {
        frozen.freeze(group);
        frozen_times += cgroup_frozen(group);
      } catch (const lane::Error& e) {
        UNSCOPED_INFO(e.what());
      }
    }
    usleep(2'000);  // thawed: the loop goes on
  }
  CHECK(frozen_times == 200);
}
