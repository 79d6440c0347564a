#include "train/trainer/after_training.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "common/boolean_text.h"
#include "common/error.h"
#include "lane/version.h"

extern char** environ;

namespace lane::train {

namespace fs = std::filesystem;

bool snapshot_requested() { return env_is_true("ENABLE_SNAPSHOT"); }

fs::path snapshot_program(const fs::path& program_dir) {
  const fs::path beside = program_dir / "lanectl";
  if (!program_dir.empty() && ::access(beside.c_str(), X_OK) == 0) return beside;
  return "lanectl";
}

std::vector<std::string> snapshot_command(const fs::path& program, const fs::path& output_dir,
                                          const std::string& code_version) {
  return {program.string(), "__training-snapshot", "--output-dir", output_dir.string(), "--code-version",
          code_version};
}

void run_snapshot_program(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout.flush();  // the child writes to the same streams: keep the log in order
  std::cerr.flush();
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (rc != 0)
    throw Error(fmt::format("ENABLE_SNAPSHOT=true: cannot run '{}' for the end-of-training snapshot ({}); "
                            "install lanectl next to scnn-train or on PATH, or set ENABLE_SNAPSHOT=false",
                            argv[0], std::strerror(rc)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(fmt::format("waiting for '{}': {}", argv[0], std::strerror(errno)));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // 127: the exec failed in the child (posix_spawnp reports a missing program this way on glibc).
  if (code == 127)
    throw Error(fmt::format("ENABLE_SNAPSHOT=true: '{}' was not found for the end-of-training snapshot; "
                            "install lanectl next to scnn-train or on PATH, or set ENABLE_SNAPSHOT=false",
                            argv[0]));
  throw Error(fmt::format("the end-of-training snapshot failed ('{}' exited with {})", argv[0], code),
              code == static_cast<int>(ExitCode::kUsage) ? ExitCode::kUsage : ExitCode::kFailure);
}

void after_training(const TrainConfig& config, const TrainingResult& /*result*/) {
  if (!snapshot_requested()) return;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  run_snapshot_program(snapshot_command(snapshot_program(ec ? fs::path() : self.parent_path()),
                                        config.output_dir, kGitRevision));
}

}  // namespace lane::train
