#pragma once
// The Backend interface: everything `lanectl` asks of a cluster. The CLI depends only on this
// (and on storage::Volumes / storage::SnapshotStore); the local backend (submit/local) and the
// Kubernetes backend (submit/kube) implement it. Errors are lane::Error (exit 1) or
// lane::UsageError (exit 2) whose message names the bad value and the fix.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/workload.h"

namespace lane::storage {
class Volumes;
class SnapshotStore;
}  // namespace lane::storage

namespace lane::submit {

// `lanectl logs` options, mapped one to one onto the Kubernetes pods/log parameters.
struct LogOptions {
  bool follow = false;
  int64_t tail = -1;           // last N lines; -1 = all
  int64_t since_seconds = 0;   // only lines newer than this many seconds; 0 = all
  bool timestamps = false;     // prefix each line with its RFC 3339 time
  std::string pod;             // empty = the chief pod (MPI: the launcher)
};

struct ProjectSpec {
  std::string name;
  double gpu_quota = 0;        // deserved GPUs
  bool over_quota = true;      // may use idle GPUs beyond the quota (preemptible when it does)
};

// One row of `lanectl project list`.
struct ProjectStatus {
  ProjectSpec spec;
  double gpus_allocated = 0;
  double gpus_requested = 0;   // running + pending
  double fair_share = 0;
  int running_jobs = 0;
  int pending_jobs = 0;
  std::vector<std::string> explanation;  // the scheduler's reasons, one fact per line
};

struct NodeSpec {
  std::string name;
  int gpus = 0;
};

// One row of `lanectl cluster nodes`.
struct NodeStatus {
  NodeSpec spec;
  double gpus_allocated = 0;   // sum of shares placed on the node
  std::vector<std::string> jobs;  // "<project>/<job>" running there
  bool declared = true;        // false: the default node made from detected GPUs
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string kind() const = 0;  // "local" | "kubernetes"

  // --- jobs ---
  // The objects a submit would create (for --dry-run -o yaml|json); changes nothing.
  // Validates like submit (same errors).
  virtual nlohmann::json render(const JobSpec& spec) = 0;
  // Creates the job (spec.name must be set; see job_name_prefix below) and returns its state.
  // Throws UsageError for a duplicate name, an unknown project or a job that could never fit.
  virtual JobInfo submit(const JobSpec& spec) = 0;
  // The smallest free "<prefix>-<N>" (N >= 1) in `project`, for --job-name-prefix / no name.
  virtual std::string next_job_name(const std::string& project, const std::string& prefix) = 0;
  // Jobs of `project`, or of all projects when `project` is nullopt; sorted by project, name.
  virtual std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) = 0;
  virtual std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) = 0;
  // Writes the chief pod's (or opts.pod's) log to `out`; with follow, until the job ends.
  virtual void stream_logs(const std::string& name, const std::string& project,
                           const LogOptions& opts, std::ostream& out) = 0;
  // Stops and removes the job; false when it does not exist.
  virtual bool delete_job(const std::string& name, const std::string& project) = 0;
  // Deletes every job of `project`; returns their names.
  virtual std::vector<std::string> delete_all_jobs(const std::string& project) = 0;
  // Runs argv inside the running job's environment (mounts, env); returns its exit code.
  virtual int exec(const std::string& name, const std::string& project,
                   const std::vector<std::string>& argv, bool tty, const std::string& pod) = 0;

  // --- projects ---
  virtual void create_project(const ProjectSpec& spec) = 0;
  virtual std::vector<ProjectStatus> list_projects() = 0;
  virtual bool project_exists(const std::string& name) = 0;
  // Throws Error when the project still has jobs.
  virtual void delete_project(const std::string& name) = 0;
  virtual void set_project_quota(const std::string& name, double gpu_quota,
                                 std::optional<bool> over_quota) = 0;

  // --- cluster ---
  virtual void set_nodes(const std::vector<NodeSpec>& nodes) = 0;
  virtual std::vector<NodeStatus> list_nodes() = 0;

  // --- storage ---
  virtual storage::Volumes& volumes() = 0;
  virtual storage::SnapshotStore& snapshots() = 0;
  // The store for `project`'s snapshots (-p): on Kubernetes its namespace's; backends with one
  // store for every project return snapshots().
  virtual storage::SnapshotStore& snapshots_of(const std::string& project) {
    (void)project;
    return snapshots();
  }
};

}  // namespace lane::submit
