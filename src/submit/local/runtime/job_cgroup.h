#pragma once
// A job's control group: its memory, CPU and process-count limits (docs/local-backend.md,
// "Limits"). cgroup v2 (/sys/fs/cgroup/cgroup.controllers) where present, else the v1 memory,
// cpu, pids and freezer hierarchies, each under a `lanectl/` group (the freezer holds the job
// still while a snapshot reads its volumes: job_freeze.h). Created by the supervisor before the
// job starts, joined by the job's first process before it execs anything, removed after the job.
// A host with neither (or without root) gets no cgroup: the job runs without these limits and
// the supervisor says so in the job's log.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lane::submit::local {

struct CgroupLimits {
  uint64_t memory_bytes = 0;  // 0: no memory limit
  double cpus = 0;            // 0: no CPU limit
  int64_t pids_max = 0;       // 0: no process limit
};

// Default and maximum of the per-job process (task) limit; LANECTL_JOB_PIDS_MAX sets another.
inline constexpr int64_t kDefaultJobPids = 4096;
inline constexpr int64_t kMaxJobPids = 1 << 20;

// The per-job process limit: LANECTL_JOB_PIDS_MAX (1..kMaxJobPids) or kDefaultJobPids.
int64_t job_pids_limit();

class JobCgroup {
 public:
  JobCgroup() = default;
  // Creates the group `name` with `limits` under `root` (the cgroup file system's mount point).
  // Empty (active() false) when the host offers no controller; throws lane::Error when a
  // controller is there but the group cannot be created or limited.
  static JobCgroup create(const std::string& name, const CgroupLimits& limits,
                          const std::string& root = "/sys/fs/cgroup");
  ~JobCgroup();
  JobCgroup(JobCgroup&& other) noexcept;
  JobCgroup& operator=(JobCgroup&& other) noexcept;
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;

  bool active() const { return !dirs_.empty(); }
  const std::string& version() const { return version_; }  // "v2", "v1" or ""
  // Each group's cgroup.procs: the job's first process writes "0" to each to join.
  std::vector<std::string> procs_files() const;
  // OOM kills counted in the group (v1 memory.oom_control, v2 memory.events); nullopt without
  // a memory controller.
  std::optional<int64_t> oom_kills() const;
  // Removes the groups, waiting up to ~2 s for the job's last processes to leave.
  void remove();

 private:
  std::string version_;
  std::vector<std::string> dirs_;
  std::string memory_dir_;
};

// The host's count of OOM kills (/proc/vmstat oom_kill); nullopt when unknown.
std::optional<int64_t> host_oom_kills();

// The group of job `job_id` run by the supervisor `supervisor`: "s<pid>-job<id>" (a later
// supervisor removes a group whose pid is gone).
std::string job_cgroup_name(pid_t supervisor, int64_t job_id);
// The directories of the group `name` under `root` that exist (v2: one; v1: one per controller),
// as JobCgroup::create makes them: what `lanectl exec` joins and a snapshot freezes.
std::vector<std::string> existing_job_cgroups(const std::string& name, const std::string& root = "/sys/fs/cgroup");

// Joins the groups whose cgroup.procs files are given (the calling process); false on failure.
// Called in the forked job before exec.
bool join_cgroups(const std::vector<std::string>& procs_files);

}  // namespace lane::submit::local
