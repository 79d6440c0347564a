// scnn-train under mpirun: a rank killed mid-training ends the job (non-zero, within the
// deadline, never a hang), and the job resumes from its last checkpoint with a different
// number of ranks. Small model, 64x128 input, 6 frames, no augmentation: seconds per step.
// Two data workers per rank, as the seed trains: the ThreadSanitizer build (scripts/setup --tsan)
// runs it to check the trainer's threads in ranks under mpirun.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "test_paths.h"

namespace fs = std::filesystem;

namespace {

std::string train_args(const fs::path& out, int max_steps) {
  return (lane::test::bin_dir() / "scnn-train").string() + " train --data-dir " +
         lane::test::tusimple_dir().string() + " --train-labels label_data_0601_first6.json" +
         " --output-dir " + out.string() + " --model small --input-height 64 --input-width 128" +
         " --batch-size 1 --no-augment --threads 1 --use-workers true --num-workers 2 --log-every 1"
         " --checkpoint-every 1 --max-steps " +
         std::to_string(max_steps);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts `mpirun -np N <args>` with output to `log`; returns mpirun's pid.
pid_t start_mpirun(int np, const std::string& args, const fs::path& log) {
  std::string cmd = "exec env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LANE_DIST_TIMEOUT_S=20 "
                    "mpirun --oversubscribe -np " + std::to_string(np) + " " + args + " > " +
                    log.string() + " 2>&1";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A direct child of mpirun running scnn-train: one of the ranks we started.
pid_t find_rank(pid_t mpirun) {
  for (auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = slurp(e.path() / "stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    char state;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == mpirun && stat.find("(scnn-train)") != std::string::npos) return std::stoi(name);
  }
  return -1;
}

}  // namespace

TEST_CASE("a rank killed mid-training ends the job non-zero, then --resume works with 1 rank", "[dist][slow]") {
  const fs::path out = fs::temp_directory_path() / ("lane-dist-trainer-" + std::to_string(getpid()));
  fs::remove_all(out);
  fs::create_directories(out);

  // 2 ranks, long run; kill one rank once step 2 has been logged (a checkpoint exists).
  pid_t mpirun = start_mpirun(2, train_args(out / "run", 200), out / "crash.log");
  auto t0 = std::chrono::steady_clock::now();
  bool reached = false, ended = false;  // ended: mpirun exited before step 2 (a rank failed)
  while (!ended && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    if (slurp(out / "crash.log").find("step 2/") != std::string::npos) {
      reached = true;
      break;
    }
    int status = 0;
    ended = waitpid(mpirun, &status, WNOHANG) == mpirun;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(slurp(out / "crash.log"));
  REQUIRE_FALSE(ended);
  REQUIRE(reached);
  pid_t victim = find_rank(mpirun);
  REQUIRE(victim > 0);
  auto killed_at = std::chrono::steady_clock::now();
  kill(victim, SIGKILL);
  int code = wait_exit(mpirun);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  CHECK(code != 0);
  CHECK(seconds < 30);
  CHECK(slurp(out / "crash.log").find("ThreadSanitizer") == std::string::npos);
  REQUIRE(fs::exists(out / "run" / "checkpoint_latest.pt"));

  // Resume the 2-rank job on 1 rank (plain process, no mpirun) for a few more steps.
  std::string resume = "OMPI_ALLOW_RUN_AS_ROOT=1 " + train_args(out / "run", 0) + " --resume 2>&1";
  // --max-steps: two steps past the checkpoint, read from the log ("step K/200").
  std::string log = slurp(out / "crash.log");
  int last = 0;
  for (size_t p = log.find("step "); p != std::string::npos; p = log.find("step ", p + 5))
    last = std::max(last, std::atoi(log.c_str() + p + 5));
  resume.replace(resume.find("--max-steps 0"), 13, "--max-steps " + std::to_string(last + 2));
  FILE* pipe = popen(resume.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  int status = pclose(pipe);
  INFO(output);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(output.find("1 rank(s)") != std::string::npos);
  CHECK(output.find("resuming at step") != std::string::npos);
  CHECK(output.find("finished at step " + std::to_string(last + 2)) != std::string::npos);
  fs::remove_all(out);
}
