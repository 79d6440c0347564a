#pragma once
// How a local job becomes a process: the argv (image entrypoint or --command, wrapped in
// `mpirun` for MPI jobs), its environment, and the mounts its private mount namespace gets.
// Building the plan is pure (testable, also used for --dry-run); executing it is sandbox.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/workload.h"

namespace lane::submit::local {

struct BindMount {
  std::string source;  // host directory
  std::string target;  // path inside the job
  bool read_only = false;
};

struct LaunchPlan {
  std::vector<std::string> argv;                          // argv[0] resolved by execvp
  std::vector<std::pair<std::string, std::string>> env;   // added to the supervisor's environment
  std::vector<BindMount> mounts;
  uint64_t shm_bytes = 64ull << 20;                       // tmpfs /dev/shm size
  std::string working_dir;
};

// The command a job runs before MPI wrapping: --command replaces the entrypoint; otherwise the
// args follow the image's entrypoint. Throws UsageError when the image is not one of the
// project's images and no command was given.
std::vector<std::string> job_command(const JobSpec& spec);

// `placement` is the stored JSON placement (one entry per pod); `volume_paths` the host directory
// of each spec.pvcs entry, in order.
LaunchPlan make_launch_plan(const JobSpec& spec, const nlohmann::json& placement,
                            const std::vector<std::string>& volume_paths,
                            const std::string& lanectl_home, const std::string& lanectl_exe);

// Size of /dev/shm: spec.shm_size when set; with --large-shm half the machine's memory; else 64 MiB.
uint64_t shm_size_bytes(const JobSpec& spec);

}  // namespace lane::submit::local
