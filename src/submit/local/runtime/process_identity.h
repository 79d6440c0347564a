#pragma once
// A process is identified by its pid AND its start time (field 22 of /proc/<pid>/stat, in
// clock ticks since boot): pids are reused, the pair is not. Used to tell whether a job's
// supervisor is still the process we started.
#include <string>
#include <sys/types.h>
#include <vector>

namespace lane::submit::local {

// 0 when the process does not exist (or is a zombie being reaped).
long long process_start_time(pid_t pid);

// The parent of `pid` (field 4 of its stat); 0 when the process does not exist.
pid_t process_parent(pid_t pid);

// True when `pid` exists and started at `start_time`.
bool process_alive(pid_t pid, long long start_time);

struct SpawnedProcess {
  pid_t pid = 0;
  long long start_time = 0;
};

// Starts argv[0] (an absolute path) fully detached: double fork + setsid, stdin/stdout/stderr
// redirected to /dev/null and `log_path` so it never holds the caller's pipes open.
SpawnedProcess spawn_detached(const std::vector<std::string>& argv, const std::string& log_path);

// Absolute path of the running executable (/proc/self/exe).
std::string self_executable();

}  // namespace lane::submit::local
