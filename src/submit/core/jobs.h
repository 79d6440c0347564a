#pragma once
// The Jobs role: what the job verbs (submit, submit-mpi, list, describe, logs, delete, exec,
// bash, suspend, resume, attach, top job) ask of a backend. Errors are lane::Error (exit 1) or lane::UsageError (exit 2) whose
// message names the bad value and the fix.
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/label_selector.h"
#include "submit/core/workload.h"

namespace lane::submit {

// `lanectl logs` options, mapped one to one onto the Kubernetes pods/log parameters.
struct LogOptions {
  bool follow = false;
  int64_t tail = -1;           // last N lines; -1 = all
  int64_t since_seconds = 0;   // only lines newer than this many seconds; 0 = all
  bool timestamps = false;     // prefix each line with its RFC 3339 time
  std::string pod;             // empty = the chief pod (MPI: the launcher)
};

// `lanectl attach` options.
struct AttachOptions {
  std::string pod;             // empty = the chief pod
  int wait_seconds = 300;      // how long to wait for a Pending job to start running
  bool stdin = false;          // -i: send this process's stdin to the job (Kubernetes only)
  bool tty = false;            // -t: a terminal (Kubernetes only)
};

// What `suspend` / `resume` did to one job.
enum class SwitchResult {
  kNoJob,      // no such job in the project
  kDone,       // suspended / resumed now
  kUnchanged,  // suspend: it was already suspended
};

// What the CLI and the dashboard tell the user: "Job train-1 suspended successfully." or
// "Job train-1 is already suspended." `verb`: suspend, resume or delete; kNoJob is the
// caller's error, not a message.
std::string switch_message(const std::string& name, const std::string& verb, SwitchResult result);

class Jobs {
 public:
  virtual ~Jobs() = default;

  // The objects a submit would create (for --dry-run -o yaml|json); changes nothing.
  // Validates like submit (same errors).
  virtual nlohmann::json render(const JobSpec& spec) = 0;
  // The flags of `spec` this backend records but cannot honour, one line each naming the flag
  // (e.g. "--toleration has no effect on the local backend (recorded for Kubernetes)"); the CLI
  // prints each once as a note at submit.
  virtual std::vector<std::string> unhonoured_flags(const JobSpec& spec) const {
    (void)spec;
    return {};
  }
  // Creates the job (spec.name must be set; see next_job_name below) and returns its state.
  // Throws UsageError for a duplicate name, an unknown project or a job that could never fit.
  virtual JobInfo submit(const JobSpec& spec) = 0;
  // The smallest free "<prefix>-<N>" (N >= 1) in `project`, for --job-name-prefix / no name.
  virtual std::string next_job_name(const std::string& project, const std::string& prefix) = 0;
  // Jobs of `project`, or of all projects when `project` is nullopt; sorted by project, name.
  virtual std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) = 0;
  // list_jobs restricted to the jobs whose --label values `selector` picks. The default filters
  // list_jobs here; a backend that can select on its server (Kubernetes: labelSelector) does so.
  virtual std::vector<JobInfo> select_jobs(const std::optional<std::string>& project, const LabelSelector& selector);
  // `list -w`: calls on_jobs with select_jobs(project, selector) at once, then again after
  // changes, until on_jobs returns false or `until` passes (nullopt: never). The default lists
  // every half second (on_jobs sees every listing, changed or not); a backend with change
  // notifications (Kubernetes: watches) calls it only when something changed.
  using JobsObserver = std::function<bool(std::vector<JobInfo> jobs)>;
  virtual void watch_jobs(const std::optional<std::string>& project, const LabelSelector& selector,
                          std::optional<std::chrono::steady_clock::time_point> until, const JobsObserver& on_jobs);
  virtual std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) = 0;
  // Writes the chief pod's (or opts.pod's) log to `out`; with follow, until the job ends.
  // A job deleted while followed ends it with JobDeleted (submit/core/errors.h).
  virtual void stream_logs(const std::string& name, const std::string& project,
                           const LogOptions& opts, std::ostream& out) = 0;
  // Stops and removes the job; false when it does not exist.
  virtual bool delete_job(const std::string& name, const std::string& project) = 0;
  // Deletes every job of `project`; returns their names.
  virtual std::vector<std::string> delete_all_jobs(const std::string& project) = 0;
  // Runs argv inside the running job's environment (mounts, env); returns its exit code. What the
  // command writes goes to `out` / `err` as it arrives (a backend whose command writes straight
  // to this process's descriptors, as the local one's does, leaves them alone).
  virtual int exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
                   bool tty, const std::string& pod, std::ostream& out, std::ostream& err) = 0;
  // Stops a pending or running job and keeps it Suspended (the scheduler leaves it alone);
  // resume makes it Pending again. kNoJob when the job does not exist, kUnchanged when it is
  // already suspended (suspend); UsageError for a job that has ended (suspend) or is not
  // Suspended (resume).
  virtual SwitchResult suspend_job(const std::string& name, const std::string& project) = 0;
  virtual SwitchResult resume_job(const std::string& name, const std::string& project) = 0;
  // Waits until the job runs (up to opts.wait_seconds), writes its output to `out` as it arrives
  // until the job ends, and returns its exit code. Throws Error when the job does not exist or
  // does not start in time, JobDeleted when it is deleted meanwhile.
  virtual int attach(const std::string& name, const std::string& project, const AttachOptions& opts,
                     std::ostream& out, std::ostream& err) = 0;
};

}  // namespace lane::submit
