#pragma once
// How a local job becomes a process: the argv (image entrypoint or --command, wrapped in
// `mpirun` for MPI jobs, in `lanectl __torchrun` for PyTorch jobs), its whole environment, and what its root file system shows: the
// system's /usr (+ /bin, /lib* links), a few files of /etc, the project's binaries at
// kJobBinDir, its volumes at their mount paths, private /tmp and /dev/shm, /proc of its own PID
// namespace, a minimal /dev, and nothing else of the host (docs/local-backend.md, "Isolation").
// Building the plan is pure (testable, also used for --dry-run); executing it is sandbox.cpp.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/workload.h"
#include "submit/local/runtime/job_cgroup.h"

namespace lane::submit::local {

struct BindMount {
  std::string source;  // host directory
  std::string target;  // path inside the job
  bool read_only = false;
};

// Where the project's own binaries (lanectl, scnn-train: the "image") appear inside a job.
inline constexpr const char* kJobBinDir = "/opt/lanectl/bin";
// Where the job API socket's directory appears inside a job (LANECTL_JOB_API names the socket).
inline constexpr const char* kJobApiDir = "/run/lanectl";

struct LaunchPlan {
  std::vector<std::string> argv;                          // argv[0] looked up in the job's PATH
  std::vector<std::pair<std::string, std::string>> env;   // the job's whole environment
  std::vector<BindMount> mounts;                          // volumes (--pvc, then -v)
  std::vector<std::string> masks;                         // paths inside the job hidden by an empty tmpfs
  std::string bin_dir;                                    // host directory mounted at kJobBinDir
  uint64_t shm_bytes = 64ull << 20;                       // tmpfs /dev/shm size
  std::string working_dir = "/tmp";
  bool host_network = false;  // --host-network: the host's network namespace, else its own (loopback only)
  // A stop signals the command last: its other processes first, and the command once they are
  // gone. For MPI jobs, whose command is mpirun: stopped, it stops relaying its ranks' output and
  // SIGKILLs them 2 s later, while a rank that saves its checkpoint on SIGTERM needs longer and
  // prints what it saved.
  bool stop_command_last = false;
  std::string init_exe;  // lanectl as the job sees it (under kJobBinDir): bubblewrap runs `__job-init` of it
  // Filled in by the supervisor: the job's uid/gid, the job API directory (host), and the
  // generated /etc/passwd and /etc/group that name the job's user.
  uid_t uid = 0;
  gid_t gid = 0;
  std::string api_dir, passwd_file, group_file;
  std::vector<std::string> cgroup_procs;  // the job's cgroups (cgroup.procs files) its first process joins
};

// The command a job runs before MPI wrapping: --command replaces the entrypoint; otherwise the
// args follow the image's entrypoint. Throws UsageError when the image is not one of the
// project's images and no command was given.
std::vector<std::string> job_command(const JobSpec& spec);

// `placement` is the stored JSON placement (one entry per pod); `volume_paths` the host directory
// of each spec.pvcs entry, in order. A -v host directory that contains `lanectl_home` gets the
// state directory masked. `lanectl_exe`'s directory is what kJobBinDir shows.
LaunchPlan make_launch_plan(const JobSpec& spec, const nlohmann::json& placement,
                            const std::vector<std::string>& volume_paths,
                            const std::string& lanectl_home, const std::string& lanectl_exe);

// `path` relative to `root` when it is `root` (".") or lies below it; nullopt otherwise.
// Lexical: make both absolute and canonical first where symlinks matter.
std::optional<std::filesystem::path> relative_within(const std::filesystem::path& path,
                                                     const std::filesystem::path& root);

// What the job's cgroup enforces: --memory and --cpu (0: none; --memory-limit and --cpu-limit
// stay Kubernetes-only) and the process limit (job_pids_limit()).
CgroupLimits cgroup_limits(const JobSpec& spec);

// Size of /dev/shm: spec.shm_size when set; with --large-shm half the machine's memory; else 64 MiB.
uint64_t shm_size_bytes(const JobSpec& spec);

}  // namespace lane::submit::local
