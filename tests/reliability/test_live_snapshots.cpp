// Issue 28, item 7: snapshots of a volume a running job writes to are one point in time (the
// job is frozen through its cgroup freezer while the snapshot reads the volume) and are listed
// only once they verify. Real jobs under the local backend, as root, with both sandboxes; each
// case is bounded (about 10 snapshots per sandbox). Counts: docs/reliability.md.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "job_util.h"
#include "support/lanectl_runner.h"
#include "support/skip_case.h"

using lane::test::bwrap_works;
using lane::test::Lanectl;
using lane::test::slurp;
namespace fs = std::filesystem;

namespace {

constexpr int kSnapshots = 10;

// Runs `body` once per sandbox mechanism, each with a fresh LANECTL_HOME.
void each_sandbox(const std::function<void(Lanectl&)>& body) {
  std::vector<std::string> modes{"unshare"};
  if (bwrap_works()) modes.push_back("bwrap");
  for (const auto& mode : modes) {
    INFO(mode);
    Lanectl l;
    l.set_env("LANECTL_SANDBOX", mode);
    body(l);
  }
}

bool have_freezer() {
  return fs::exists("/sys/fs/cgroup/cgroup.controllers") || fs::exists("/sys/fs/cgroup/freezer/cgroup.procs");
}

// Starts `script` as job `job` on a new claim and waits until it has written /data/ready.
void start_writer(Lanectl& l, const std::string& job, const std::string& script) {
  lane::test::start_until_ready(l, job, ":64Mi:/data", script);
}

// Takes kSnapshots snapshots s0.. of `pvc`, 50 ms apart; each must be created and verify.
void take_snapshots(Lanectl& l, const std::string& pvc) {
  for (int i = 0; i < kSnapshots; ++i) {
    auto r = l.run({"snapshot", "create", "--pvc", pvc, "--name", fmt::format("s{}", i)});
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(l.run({"snapshot", "verify", fmt::format("s{}", i)}).code == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Restores snapshot `snap` to a new claim and returns that claim's directory.
fs::path restore(Lanectl& l, const std::string& snap) {
  const std::string to = "r-" + snap;
  auto r = l.run({"restore", snap, "--to-pvc", to});
  INFO(r.err);
  CHECK(r.code == 0);
  return l.home() / "volumes" / to;
}

// Whether `text` is "line-1\nline-2\n...line-N\n" for some N >= 1.
bool whole_lines_from_one(const std::string& text) {
  std::istringstream in(text);
  int want = 1;
  for (std::string line; std::getline(in, line); ++want)
    if (line != fmt::format("line-{}", want)) return false;
  return want > 1 && !text.empty() && text.back() == '\n';
}

// The v1 freezer group of job `id` of this LANECTL_HOME: "s<supervisor pid>-job<id>", the
// supervisor found by its command line (other homes' jobs share the host's freezer hierarchy).
fs::path freezer_group(const Lanectl& l, int id) {
  const std::string want = "__supervise" + std::string(1, '\0') + l.home().string() + std::string(1, '\0') +
                           std::to_string(id) + std::string(1, '\0');
  for (const auto& p : fs::directory_iterator("/proc")) {
    const std::string pid = p.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (slurp(p.path() / "cmdline").find(want) != std::string::npos)
      return fs::path("/sys/fs/cgroup/freezer/lanectl") / fmt::format("s{}-job{}", pid, id);
  }
  return {};
}

}  // namespace

TEST_CASE("snapshots of a volume a job appends to all verify and restore (the job is frozen while they read)", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("freezing a job's cgroup needs root");
  if (!have_freezer()) LANE_SKIP_CASE("this host has neither cgroup v2 nor the v1 freezer");
  each_sandbox([](Lanectl& l) {
    start_writer(l, "app", "i=0; : > /data/ready; while :; do i=$((i+1)); echo line-$i >> /data/log; done");
    take_snapshots(l, "pvc-app-0");
    CHECK(l.run({"describe", "job", "app", "-o", "json"}).out.find("\"Running\"") != std::string::npos);
    for (int i = 0; i < kSnapshots; ++i) {
      const fs::path vol = restore(l, fmt::format("s{}", i));
      INFO("s" << i);
      CHECK(whole_lines_from_one(slurp(vol / "log")));
    }
    CHECK(l.run({"snapshot", "describe", "s0"}).out.find("frozenJobs: default/app") != std::string::npos);
    l.run({"delete", "app"});
  });
}

TEST_CASE("snapshots of two files a job rewrites in place hold one point in time of both", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("freezing a job's cgroup needs root");
  if (!have_freezer()) LANE_SKIP_CASE("this host has neither cgroup v2 nor the v1 freezer");
  each_sandbox([](Lanectl& l) {
    // Each step writes the counter in place (one 12-byte pwrite, no truncation) to a, then to b:
    // any one moment has a == b, or a one step ahead of b.
    start_writer(l, "rw",
                 "exec python3 -c \"\nimport os\na = os.open('/data/a', os.O_RDWR | os.O_CREAT)\n"
                 "b = os.open('/data/b', os.O_RDWR | os.O_CREAT)\nopen('/data/ready', 'w').close()\ni = 0\n"
                 "while True:\n  i += 1\n  v = b'%012d' % i\n  os.pwrite(a, v, 0)\n  os.pwrite(b, v, 0)\n\"");
    take_snapshots(l, "pvc-rw-0");
    for (int i = 0; i < kSnapshots; ++i) {
      const fs::path vol = restore(l, fmt::format("s{}", i));
      const std::string a = slurp(vol / "a"), b = slurp(vol / "b");
      INFO("s" << i << ": a=" << a << " b=" << b);
      REQUIRE(a.size() == 12);
      REQUIRE(b.size() == 12);
      const long long na = std::stoll(a), nb = std::stoll(b);
      CHECK((na == nb || na == nb + 1));
    }
    l.run({"delete", "rw"});
  });
}

TEST_CASE("a snapshot of a volume whose writer cannot be frozen is refused, or taken as not point in time on request", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("moving a job out of its cgroup needs root");
  if (!fs::exists("/sys/fs/cgroup/freezer/cgroup.procs")) LANE_SKIP_CASE("the case moves tasks between v1 freezer groups");
  Lanectl l;
  start_writer(l, "nf", "i=0; : > /data/ready; while :; do i=$((i+1)); echo line-$i > /data/f; sleep 0.5; done");
  // The job's processes leave its freezer group, which is removed: the job can no longer be frozen.
  const fs::path g = freezer_group(l, 1);
  REQUIRE(fs::exists(g / "cgroup.procs"));
  for (int k = 0; k < 5 && !slurp(g / "cgroup.procs").empty(); ++k)
    std::system(fmt::format("for p in $(cat {}/cgroup.procs); do echo $p > /sys/fs/cgroup/freezer/cgroup.procs; done",
                            g.string()).c_str());
  REQUIRE(::rmdir(g.c_str()) == 0);
  auto refused = l.run({"snapshot", "create", "--pvc", "pvc-nf-0", "--name", "x"});
  CHECK(refused.code != 0);
  CHECK(refused.err.find("cannot freeze it: its cgroup has no freezer") != std::string::npos);
  CHECK(refused.err.find("LANECTL_SNAPSHOT_NO_FREEZE=1") != std::string::npos);
  CHECK(l.run({"snapshot", "describe", "x"}).code != 0);
  l.set_env("LANECTL_SNAPSHOT_NO_FREEZE", "1");
  auto taken = l.run({"snapshot", "create", "--pvc", "pvc-nf-0", "--name", "y"});
  INFO(taken.err);
  CHECK(taken.code == 0);
  CHECK(l.run({"snapshot", "describe", "y"}).out.find("pointInTime: false (default/nf not frozen") != std::string::npos);
  l.run({"delete", "nf"});
}

TEST_CASE("lanectl exec joins the job's cgroups, so a snapshot freezes what it runs too", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("job cgroups and freezing need root");
  if (!have_freezer()) LANE_SKIP_CASE("this host has neither cgroup v2 nor the v1 freezer");
  each_sandbox([](Lanectl& l) {
    start_writer(l, "ex", ": > /data/ready; exec sleep 600");
    auto groups = l.run({"exec", "ex", "--", "cat", "/proc/self/cgroup"});
    INFO(groups.err);
    REQUIRE(groups.code == 0);
    const std::string own = ":/lanectl/s";  // the job's group "s<supervisor>-job<id>" (job_cgroup.h)
    int joined = 0;
    for (size_t at = 0; (at = groups.out.find(own, at)) != std::string::npos; ++at) ++joined;
    INFO(groups.out);
    CHECK(joined >= (fs::exists("/sys/fs/cgroup/cgroup.controllers") ? 1 : 4));  // v1: memory, cpu, pids, freezer
    // The writer is the exec'd command, not the job: the snapshots must freeze it all the same.
    const pid_t writer = l.start({"exec", "ex", "--", "/bin/sh", "-c",
                                  "i=0; while :; do i=$((i+1)); echo line-$i >> /data/log; done"}, "writer");
    for (int i = 0; i < 100 && !fs::exists(l.home() / "volumes/pvc-ex-0/log"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    take_snapshots(l, "pvc-ex-0");
    for (int i = 0; i < kSnapshots; ++i) {
      INFO("s" << i);
      CHECK(whole_lines_from_one(slurp(restore(l, fmt::format("s{}", i)) / "log")));
    }
    l.run({"delete", "ex"});
    l.finish(writer, "writer");
  });
}

TEST_CASE("a snapshot killed while it holds a job frozen leaves the job frozen for at most a few seconds", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("freezing a job's cgroup needs root");
  if (!fs::exists("/sys/fs/cgroup/freezer/cgroup.procs")) LANE_SKIP_CASE("the case reads the v1 freezer state");
  Lanectl l;
  start_writer(l, "kf", "i=0; : > /data/ready; while :; do i=$((i+1)); echo line-$i >> /data/log; done");
  // Many files make the capture long enough to kill it half way.
  REQUIRE(std::system(fmt::format("mkdir -p {0}/many && for i in $(seq 1 3000); do echo $i > {0}/many/f$i; done",
                                  (l.home() / "volumes/pvc-kf-0").string()).c_str()) == 0);
  const fs::path state_file = freezer_group(l, 1) / "freezer.state";
  REQUIRE(fs::exists(state_file));
  bool seen_frozen = false;
  for (int attempt = 0; attempt < 20 && !seen_frozen; ++attempt) {
    const pid_t snap = l.start({"snapshot", "create", "--pvc", "pvc-kf-0", "--name", fmt::format("k{}", attempt)}, "k");
    for (int i = 0; i < 400 && !seen_frozen; ++i) {
      seen_frozen = slurp(state_file).rfind("FROZEN", 0) == 0;
      if (!seen_frozen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(snap, SIGKILL);
    l.finish(snap, "k");
  }
  REQUIRE(seen_frozen);
  bool thawed = false;
  for (int i = 0; i < 50 && !thawed; ++i) {
    thawed = slurp(state_file).rfind("THAWED", 0) == 0;
    if (!thawed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(thawed);
  CHECK(l.run({"logs", "kf"}).out.find("left frozen by a snapshot that did not finish; thawed") != std::string::npos);
  l.run({"delete", "kf"});
}

TEST_CASE("a job's own end-of-training snapshot freezes it without deadlock and holds what its writer appended", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("freezing a job's cgroup needs root");
  if (!have_freezer()) LANE_SKIP_CASE("this host has neither cgroup v2 nor the v1 freezer");
  each_sandbox([](Lanectl& l) {
    // A background writer of the job appends while the job asks for its snapshot (job API).
    const std::string script =
        "mkdir -p /data/out; echo '{\"kind\":\"train\",\"step\":1,\"loss\":0.5}' > /data/out/metrics.jsonl;"
        " (i=0; while :; do i=$((i+1)); echo line-$i >> /data/log; done) & w=$!; sleep 0.5;"
        " lanectl __training-snapshot --output-dir /data/out; echo rc=$?; kill $w";
    REQUIRE(l.run({"submit", "own", "-i", "x", "--pvc", ":64Mi:/data", "-e", "ENABLE_SNAPSHOT=true", "-e",
                   "PVC_NAME=pvc-own-0", "--command", "--", "/bin/sh", "-c", script}).code == 0);
    const auto end = l.wait_status("own", {"Succeeded", "Failed"}, "default", 60).value("status", "");
    const std::string log = l.run({"logs", "own"}).out;
    INFO(log);
    CHECK(end == "Succeeded");
    REQUIRE(log.find("rc=0") != std::string::npos);
    const auto list = nlohmann::json::parse(l.run({"snapshot", "list", "-o", "json"}).out)["items"];
    REQUIRE(list.size() == 1);
    const std::string snap = list[0].value("name", "");
    CHECK(l.run({"snapshot", "verify", snap}).code == 0);
    CHECK(l.run({"snapshot", "describe", snap}).out.find("frozenJobs: default/own") != std::string::npos);
    CHECK(whole_lines_from_one(slurp(restore(l, snap) / "log")));
  });
}
