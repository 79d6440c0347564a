#pragma once
// The jobs table's life cycle: the functions below are the only code that writes a job row.
// Each named transition moves a job between the states of JobStatus the table stores:
//
//   submit ─► Pending ──start──► Running ──succeed──► Succeeded
//              ▲  ▲ ▲              │  │ └──fail, lose_supervisor──► Failed
//              │  │ └──preempt─────┘  │
//              │  └────run_again──────┘
//              │                      suspend (from Pending or Running) ─► Suspended
//              └──────────────────────resume───────────────────────────────────┘
//
// A transition from any other state, on a row that is gone, or (where it names one) in another
// attempt than the caller's, is refused with JobTransitionRefused and writes nothing. Deleting a
// row (erase_job) is allowed in every state. Call them inside a WriteTransaction.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "submit/core/workload.h"
#include "submit/local/state/sqlite_db.h"
#include "submit/scheduler/scheduler.h"

namespace lane::submit::local {

enum class JobTransition {
  kStart,           // Pending → Running: the scheduling pass placed it; a new attempt begins
  kPreempt,         // Running → Pending: the scheduler took its GPUs; the attempt ends
  kRunAgain,        // Running → Pending: its attempt ended, it runs again (--backoff-limit, --completions)
  kSucceed,         // Running → Succeeded: the command exited with 0
  kFail,            // Running → Failed: the command failed or could not start
  kLoseSupervisor,  // Running → Failed: its supervisor is gone
  kSuspend,         // Pending or Running → Suspended (lanectl suspend); the attempt ends
  kResume,          // Suspended → Pending (lanectl resume)
};

struct JobTransitionRule {
  const char* name;              // "start", "preempt", ...
  std::vector<JobStatus> from;   // the states it leaves
  JobStatus to;
};
const JobTransitionRule& transition_rule(JobTransition transition);
// Every transition, in the order of the enum (for tests and documentation).
const std::vector<JobTransition>& all_job_transitions();

// The SQL condition "status IN ('Pending','Running')" for `states`: every query that selects rows
// by their state names them through JobStatus, as the stored text is to_string(JobStatus).
std::string status_in(const std::vector<JobStatus>& states);

// A transition the job's row does not allow: it is gone, in another state, or in another attempt.
class JobTransitionRefused : public Error {
 public:
  JobTransitionRefused(const std::string& message, std::optional<JobStatus> current)
      : Error(message), current_(current) {}
  // The job's state when it was refused; nullopt when the row is gone.
  std::optional<JobStatus> current() const { return current_; }

 private:
  std::optional<JobStatus> current_;
};

// submit: inserts the job as Pending ("waiting for the scheduler") and returns its id.
int64_t insert_job(Database& db, const JobSpec& spec, int64_t now_ms);

// The transitions. Where one takes `attempt`, the attempt the caller runs: a row that has since
// moved to another attempt (preempted, suspended, deleted and submitted again) refuses.
// start returns the attempt it begins (the row's attempt + 1).
int start_job(Database& db, int64_t id, const std::vector<sched::PodPlacement>& placement, int64_t now_ms);
void preempt_job(Database& db, int64_t id, const std::string& reason);
void run_job_again(Database& db, int64_t id, int attempt, const std::string& reason);
// succeed (ok) or fail: records the exit code and the finish time.
void finish_job(Database& db, int64_t id, int attempt, bool ok, const std::string& reason, int exit_code,
                int64_t now_ms);
void fail_lost_supervisor(Database& db, int64_t id, const std::string& reason, int64_t now_ms);
void suspend_job(Database& db, int64_t id, const std::string& reason);
void resume_job(Database& db, int64_t id, const std::string& reason);

// Writes that keep the state. A Running job's attempt: its supervisor (recorded by the pass that
// starts it) and the job's process group (recorded by that supervisor once it started it).
void record_supervisor(Database& db, int64_t id, int attempt, pid_t pid, long long start_time);
void record_job_processes(Database& db, int64_t id, int attempt, pid_t pgid, long long start_time);
// Why a Pending job waits.
void set_pending_reason(Database& db, int64_t id, const std::string& reason);

// Removes a job's row and its events, whatever its state (the caller removes its directory
// after the commit).
void erase_job(Database& db, int64_t id);

}  // namespace lane::submit::local
