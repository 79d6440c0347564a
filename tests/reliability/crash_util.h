#pragma once
// Kill -9 helpers for the crash-injection tests: run a command and SIGKILL it after a delay, or
// under strace with `inject=SYSCALL:signal=KILL:when=N` (the N-th such system call never
// returns). Settings come from the environment so CI stays short and a long run is one variable:
//   LANE_CRASH_SEED (default 15), LANE_CRASH_KILLS (random kills per operation, default 6),
//   LANE_CRASH_STRACE (0 disables the strace kills), LANE_CRASH_AT (which call of each system
//   call is killed: a comma list of first, middle and last; all three by default).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lane::test {

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// The calls of a system call made `n` times that LANE_CRASH_AT picks, in order, without repeats.
// Throws std::invalid_argument naming the variable for a word that is not first, middle or last.
inline std::vector<int> crash_points(int n) {
  const char* v = std::getenv("LANE_CRASH_AT");
  const std::string spec = v && *v ? v : "first,middle,last";
  std::vector<int> out;
  for (size_t pos = 0; pos <= spec.size();) {
    const size_t comma = std::min(spec.find(',', pos), spec.size());
    const std::string word = spec.substr(pos, comma - pos);
    int when;
    if (word == "first") when = 1;
    else if (word == "middle") when = std::max(1, n / 2);
    else if (word == "last") when = std::max(1, n);
    else throw std::invalid_argument("LANE_CRASH_AT: '" + word + "' is not first, middle or last (e.g. LANE_CRASH_AT=middle,last)");
    if (std::find(out.begin(), out.end(), when) == out.end()) out.push_back(when);
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline bool strace_usable() {
  static const bool ok = std::system("strace -f -qq -o /dev/null true >/dev/null 2>&1") == 0;
  return ok && env_int("LANE_CRASH_STRACE", 1) != 0;
}

// fork + exec `argv` with `env` added, stdout/stderr to `log`. Returns the pid.
inline pid_t spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                   const std::filesystem::path& log) {
  std::fflush(nullptr);  // or the child's freopen writes the parent's buffered output again
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: a kill reaches strace's tracee too
    std::FILE* out = std::freopen(log.c_str(), "a", stdout);
    (void)out;
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// The exit status as a shell reports it (128 + signal when killed).
inline int wait_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `argv`, SIGKILLs its process group after `delay`; returns the exit status (137 = killed,
// anything else = it finished first).
inline int run_killed_after(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                            const std::filesystem::path& log, std::chrono::microseconds delay) {
  pid_t pid = spawn(argv, env, log);
  std::this_thread::sleep_for(delay);
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  return wait_code(pid);
}

// Runs `argv` under strace, killed at the `when`-th call of `syscall` (by any of its threads or
// children). Returns the exit status (137 when the kill happened).
inline int run_killed_at_syscall(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                                 const std::filesystem::path& log, const std::string& syscall, int when) {
  std::vector<std::string> cmd{"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + syscall,
                               "-e", "inject=" + syscall + ":signal=KILL:when=" + std::to_string(when)};
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  return wait_code(spawn(cmd, env, log));
}

// How many times `argv` makes `syscall` (strace log lines); 0 when strace fails.
inline int count_syscalls(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          const std::filesystem::path& dir, const std::string& syscall) {
  const auto trace = dir / ("count-" + syscall + ".trace");
  std::vector<std::string> cmd{"strace", "-f", "-qq", "-o", trace.string(), "-e", "trace=" + syscall};
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  wait_code(spawn(cmd, env, dir / "count.log"));
  std::FILE* f = std::fopen(trace.c_str(), "r");
  if (!f) return 0;
  int n = 0;
  for (int c; (c = std::fgetc(f)) != EOF;)
    if (c == '\n') ++n;
  std::fclose(f);
  std::filesystem::remove(trace);
  return n;
}

}  // namespace lane::test
