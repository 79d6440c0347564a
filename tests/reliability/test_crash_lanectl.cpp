// Crash injection for lanectl's storage operations (issue 15, "keep proving it"): snapshot
// create, restore --to-pvc and restore --in-place are SIGKILLed at random moments (seeded) and,
// where strace works, at chosen system calls. After every kill:
//   - nothing is half visible: a snapshot is listed only if it verifies and has its lineage; a
//     restored volume is registered only with exactly the snapshot's tree; a reverted volume
//     holds the old tree or the snapshot's, never a mix;
//   - the next run succeeds (the name is not blocked) and removes the leftovers (staging,
//     .revert folders, unregistered volume directories);
//   - the data is intact (the source volume and the base snapshot verify).
// The counts printed at the end go to docs/reliability.md.
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "support/lanectl_runner.h"
#include "crash_util.h"
#include "storage/tree_util.h"

using lane::test::Lanectl;
namespace fs = std::filesystem;

namespace {

using Tree = std::map<std::string, std::string>;

std::string sh(const std::string& cmd) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

struct Rig {
  Lanectl cli;
  fs::path vol;
  Tree base;      // the tree of snapshot "base"
  Tree expected;  // what the source volume must hold (only the test changes it)
  std::map<std::string, std::string> env;
  int random_kills = 0, strace_kills = 0, finished_first = 0;  // kills that hit, runs that ended first

  Rig() {
    auto r = cli.run({"submit", "fill", "-i", "ubuntu", "--pvc", ":1Gi:/mnt", "--command", "--", "true"});
    REQUIRE(r.code == 0);
    REQUIRE(cli.wait_status("fill", {"Succeeded", "Failed"}).value("status", "") == "Succeeded");
    vol = cli.home() / "volumes" / "pvc-fill-0";
    // ~6 MB in 400 files over 20 directories, one of them read-only.
    std::mt19937 rng(7);
    for (int i = 0; i < 400; ++i)
      lane::test::write_text(vol / fmt::format("d{:02}/f{:03}.bin", i % 20, i),
                             fmt::format("{}:", i) + std::string(8000 + rng() % 16000, char('a' + i % 26)));
    ::chmod((vol / "d07").c_str(), 0555);
    lane::test::age_tree(vol);
    REQUIRE(cli.run({"snapshot", "create", "--pvc", "pvc-fill-0", "--name", "base"}).code == 0);
    base = lane::test::describe_tree(vol);
    expected = base;
    env = {{"LANECTL_HOME", cli.home().string()}, {"LANECTL_BACKEND", "local"}};
  }

  std::vector<std::string> lanectl(std::vector<std::string> args) const {
    args.insert(args.begin(), (lane::test::bin_dir() / "lanectl").string());
    return args;
  }

  std::vector<std::string> registered_volumes() const {
    std::vector<std::string> out;
    std::string text = sh("sqlite3 -readonly '" + (cli.home() / "state.db").string() + "' 'select name from volumes'");
    for (size_t pos = 0, nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
      out.push_back(text.substr(pos, nl - pos));
    return out;
  }
  bool registered(const std::string& name) const {
    auto all = registered_volumes();
    return std::find(all.begin(), all.end(), name) != all.end();
  }

  // Leftovers the next run must have removed: staging entries, .revert folders, directories
  // under volumes/ that no volume owns.
  std::vector<std::string> debris() const {
    std::vector<std::string> out;
    const auto reg = registered_volumes();
    for (const auto& e : fs::directory_iterator(cli.home() / "volumes")) {
      const std::string f = e.path().filename().string();
      if (f == ".staging") {
        for (const auto& s : fs::directory_iterator(e.path())) out.push_back(".staging/" + s.path().filename().string());
      } else if (std::find(reg.begin(), reg.end(), f) == reg.end()) {
        out.push_back(f);
      }
    }
    return out;
  }

  void check_data_intact() {
    CHECK(lane::test::describe_tree(vol) == expected);
    CHECK(cli.run({"snapshot", "verify", "base"}).code == 0);
  }
  // New content, so that the next snapshot has objects to store (not only a scan).
  void change_volume(int i) {
    lane::test::write_text(vol / fmt::format("d01/n{}.bin", i), fmt::format("{}:", i) + std::string(300000, 'n'));
    expected = lane::test::describe_tree(vol);
  }

  // One kill of `args` (random delay in [0, max_delay), or at a system call).
  int kill_once(const std::vector<std::string>& args, std::mt19937& rng, std::chrono::microseconds max_delay,
                const std::string& syscall = "", int when = 0) {
    const fs::path log = cli.home() / "kill.log";
    int code;
    if (syscall.empty()) {
      std::uniform_int_distribution<long long> d(0, max_delay.count());
      code = lane::test::run_killed_after(lanectl(args), env, log, std::chrono::microseconds(d(rng)));
    } else {
      code = lane::test::run_killed_at_syscall(lanectl(args), env, log, syscall, when);
    }
    if (code != 137) ++finished_first;
    else if (syscall.empty()) ++random_kills;
    else ++strace_kills;
    return code;
  }
};

std::chrono::microseconds time_of(Rig& rig, const std::vector<std::string>& args) {
  auto t0 = std::chrono::steady_clock::now();
  auto r = rig.cli.run(args);
  REQUIRE(r.code == 0);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
}

// Kill points: random ones, then (with strace) the first, middle and last call of each syscall
// (LANE_CRASH_AT chooses among those three).
template <typename Args, typename Check>
void inject(Rig& rig, const std::string& what, Args args_for, Check check, const std::vector<std::string>& syscalls,
            std::chrono::microseconds full) {
  std::mt19937 rng(static_cast<unsigned>(lane::test::env_int("LANE_CRASH_SEED", 15)));
  const int random_kills = lane::test::env_int("LANE_CRASH_KILLS", 6);
  int round = 0;
  for (int k = 0; k < random_kills; ++k, ++round) {
    INFO(what << " random kill " << k);
    rig.kill_once(args_for(round), rng, full + full / 5);
    check(round);
  }
  if (!lane::test::strace_usable()) {
    WARN("strace is not usable here: " << what << " is killed at random points only");
    return;
  }
  for (const auto& sc : syscalls) {
    const int n = lane::test::count_syscalls(rig.lanectl(args_for(round)), rig.env, rig.cli.home(), sc);
    check(round++);  // the counting run completed: the checks hold for a finished run too
    for (int when : lane::test::crash_points(n)) {
      INFO(what << " killed at " << sc << " #" << when << " of " << n);
      rig.kill_once(args_for(round), rng, {}, sc, when);
      check(round++);
    }
  }
}

void report(const Rig& rig, const char* what) {
  std::printf("crash-injection (%s): %d kill -9 survived (%d at random times, %d at system calls), %d runs "
              "finished before their kill; every invariant held\n",
              what, rig.random_kills + rig.strace_kills, rig.random_kills, rig.strace_kills, rig.finished_first);
}

}  // namespace

TEST_CASE("crash injection: snapshot create survives kill -9 anywhere", "[reliability][slow]") {
  Rig rig;
  {
    auto args = [](int i) {
      return std::vector<std::string>{"snapshot", "create", "--pvc", "pvc-fill-0", "--name", fmt::format("c{}", i)};
    };
    rig.change_volume(999);
    const auto full = time_of(rig, args(999));
    rig.change_volume(0);
    auto check = [&](int i) {
      const std::string name = fmt::format("c{}", i);
      auto d = rig.cli.run({"snapshot", "describe", name, "-o", "json"});
      if (d.code == 0) {  // visible: complete, verified, with its lineage
        CHECK(rig.cli.run({"snapshot", "verify", name}).code == 0);
        CHECK(rig.cli.run({"lineage", name}).code == 0);
        CHECK(rig.cli.run({"snapshot", "delete", name}).code == 0);
      } else {
        CHECK(rig.cli.run({"snapshot", "list", "-o", "json"}).out.find("\"" + name + "\"") == std::string::npos);
      }
      // The next run takes the same name; a delete sweeps the killed run's orphans.
      REQUIRE(rig.cli.run({"snapshot", "create", "--pvc", "pvc-fill-0", "--name", name}).code == 0);
      CHECK(rig.cli.run({"snapshot", "verify", name}).code == 0);
      REQUIRE(rig.cli.run({"snapshot", "delete", name}).code == 0);
      CHECK(fs::is_empty(rig.cli.home() / "snapshots" / "objects" / "tmp"));
      rig.check_data_intact();
      rig.change_volume(i + 1);
    };
    inject(rig, "snapshot create", args, check, {"write", "fsync", "link", "rename"}, full);
  }
  report(rig, "snapshot create");
}

TEST_CASE("crash injection: restore --to-pvc survives kill -9 anywhere", "[reliability][slow]") {
  Rig rig;
  {
    auto args = [](int i) { return std::vector<std::string>{"restore", "base", "--to-pvc", fmt::format("r{}", i)}; };
    const auto full = time_of(rig, args(999));
    auto check = [&](int i) {
      const std::string name = fmt::format("r{}", i);
      const fs::path dir = rig.cli.home() / "volumes" / name;
      if (rig.registered(name)) {  // visible: exactly the snapshot's tree
        CHECK(lane::test::describe_tree(dir) == rig.base);
      } else {
        auto lin = rig.cli.run({"lineage", "base", "-o", "json"});
        CHECK(lin.out.find("\"" + name + "\"") == std::string::npos);
        // The next run: the name is free, the restore completes and the debris is gone.
        auto r = rig.cli.run({"restore", "base", "--to-pvc", name});
        INFO(r.err);
        REQUIRE(r.code == 0);
        CHECK(lane::test::describe_tree(dir) == rig.base);
      }
      CHECK(rig.debris().empty());
      rig.check_data_intact();
    };
    inject(rig, "restore --to-pvc", args, check, {"write", "syncfs", "rename", "mkdirat"}, full);
  }
  report(rig, "restore --to-pvc");
}

TEST_CASE("crash injection: restore --in-place survives kill -9 anywhere", "[reliability][slow]") {
  Rig rig;
  {
    auto args = [](int) {
      return std::vector<std::string>{"restore", "base", "--in-place", "--pvc", "pvc-fill-0", "--yes"};
    };
    auto modify = [&] {
      ::chmod((rig.vol / "d07").c_str(), 0755);
      fs::remove_all(rig.vol / "d03");
      lane::test::write_text(rig.vol / "d05/added.txt", "added after base");
    };
    modify();
    Tree modified = lane::test::describe_tree(rig.vol);
    const auto full = time_of(rig, args(0));
    REQUIRE(lane::test::describe_tree(rig.vol) == rig.base);
    auto check = [&](int) {
      const Tree now = lane::test::describe_tree(rig.vol);
      CHECK((now == modified || now == rig.base));  // the old tree or the snapshot's, never a mix
      auto r = rig.cli.run(args(0));                // the next run completes the revert
      INFO(r.err);
      REQUIRE(r.code == 0);
      CHECK(lane::test::describe_tree(rig.vol) == rig.base);
      CHECK(rig.debris().empty());
      CHECK(rig.cli.run({"snapshot", "verify", "base"}).code == 0);
      modify();  // the next kill again has something to replace
      modified = lane::test::describe_tree(rig.vol);
      REQUIRE(modified != rig.base);
    };
    inject(rig, "restore --in-place", args, check, {"write", "syncfs", "renameat2", "mkdirat"}, full);
  }
  report(rig, "restore --in-place");
}

TEST_CASE("crash injection: LANE_CRASH_AT picks the first and middle and last calls and refuses other words",
          "[reliability][fast]") {
  using lane::test::crash_points;
  ::unsetenv("LANE_CRASH_AT");
  CHECK(crash_points(10) == std::vector<int>{1, 5, 10});
  CHECK(crash_points(1) == std::vector<int>{1});
  CHECK(crash_points(3) == std::vector<int>{1, 3});
  ::setenv("LANE_CRASH_AT", "middle", 1);
  CHECK(crash_points(10) == std::vector<int>{5});
  ::setenv("LANE_CRASH_AT", "last,first", 1);
  CHECK(crash_points(10) == std::vector<int>{1, 10});
  ::setenv("LANE_CRASH_AT", "middel", 1);
  CHECK_THROWS_WITH(crash_points(10), Catch::Contains("LANE_CRASH_AT: 'middel' is not first, middle or last"));
  ::setenv("LANE_CRASH_AT", "first,", 1);
  CHECK_THROWS_WITH(crash_points(10), Catch::Contains("'' is not first"));
  ::unsetenv("LANE_CRASH_AT");
}
