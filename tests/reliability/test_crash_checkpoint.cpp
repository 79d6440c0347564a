// Crash injection for checkpoint writes (issue 15): a process saving checkpoints is SIGKILLed
// at random moments (seeded) and, with strace, at its write/fsync/rename calls. After every kill
// the latest checkpoint is either absent (no save finished yet) or complete and verified by its
// digest; the next run removes the killed save's temporaries and continues.
#include "catch_torch.h"

#include <random>

#include "common/error.h"
#include "crash_util.h"
#include "trainer/trainer_test_util.h"
#include "train/trainer/checkpoint.h"

namespace fs = std::filesystem;

namespace {

size_t temporaries(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

// The checkpoint, if any, loads and passes its digest check; returns its step (0 = none).
int64_t check_latest(const fs::path& dir) {
  const fs::path path = dir / "checkpoint_latest.pt";
  if (!fs::exists(path)) return 0;
  lane::model::Scnn net(lane::test::tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  int64_t step = -1;
  try {
    step = lane::train::load_checkpoint(path, net, &opt).step;
  } catch (const std::exception& e) {
    FAIL("the latest checkpoint does not load after a kill: " << e.what());
  }
  CHECK(step >= 1);
  return step;
}

}  // namespace

TEST_CASE("crash injection: checkpoint saves killed anywhere leave the last complete checkpoint", "[reliability][slow]") {
  const fs::path dir = fs::temp_directory_path() / ("lane-crash-ckpt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> writer{LANE_CHECKPOINT_WRITER, dir.string(), "4"};
  const std::map<std::string, std::string> env{{"OMP_NUM_THREADS", "1"}};

  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(lane::test::wait_code(lane::test::spawn(writer, env, dir / "log")) == 0);
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  CHECK(check_latest(dir) == 4);

  int random_kills = 0, strace_kills = 0, finished = 0;
  auto after_kill = [&](int code) {
    if (code != 137) ++finished;
    check_latest(dir);
    // The next run cleans the killed save's temporary and saves again.
    REQUIRE(lane::test::wait_code(lane::test::spawn({LANE_CHECKPOINT_WRITER, dir.string(), "1"}, env, dir / "log")) == 0);
    CHECK(temporaries(dir) == 0);
    CHECK(check_latest(dir) == 1);
  };
  std::mt19937 rng(static_cast<unsigned>(lane::test::env_int("LANE_CRASH_SEED", 15)));
  std::uniform_int_distribution<long long> delay(0, full.count());
  for (int k = 0; k < lane::test::env_int("LANE_CRASH_KILLS", 6); ++k) {
    fs::remove(dir / "checkpoint_latest.pt");
    const int code = lane::test::run_killed_after(writer, env, dir / "log", std::chrono::microseconds(delay(rng)));
    random_kills += code == 137;
    after_kill(code);
  }
  if (lane::test::strace_usable()) {
    for (const std::string sc : {"write", "fsync", "rename"}) {
      const int n = lane::test::count_syscalls(writer, env, dir, sc);
      for (int when : {1, std::max(1, n / 2), std::max(1, n - 1)}) {
        INFO(sc << " #" << when << " of " << n);
        const int code = lane::test::run_killed_at_syscall(writer, env, dir / "log", sc, when);
        strace_kills += code == 137;
        after_kill(code);
      }
    }
  } else {
    WARN("strace is not usable here: checkpoint saves are killed at random points only");
  }
  std::printf("crash-injection (checkpoint): %d kill -9 survived (%d at random times, %d at system calls), "
              "%d runs finished before their kill; the latest checkpoint always loaded\n",
              random_kills + strace_kills, random_kills, strace_kills, finished);
  fs::remove_all(dir);
}
