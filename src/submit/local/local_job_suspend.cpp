// lanectl suspend / resume on the local backend. Suspending stops the job's supervisor the way
// preemption does (scheduling_pass.cpp: SIGTERM, which the supervisor escalates to SIGKILL of
// the job's process group) and keeps the row Suspended: load_job_rows(.., active_only) and so
// the scheduling pass never see it. Resume makes it Pending for the next pass. Which states may
// be suspended or resumed is the job table's rule (state/job_table.h); its refusal is the
// user's mistake here.
#include "submit/local/local_jobs.h"

#include "common/error.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {

SwitchResult LocalJobs::suspend_job(const std::string& name, const std::string& project) {
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    auto row = load_job_row(st_.db, project, name, false);
    if (!row) return SwitchResult::kNoJob;
    if (row->status == JobStatus::kSuspended) return SwitchResult::kUnchanged;
    try {
      // A new attempt: the stopped attempt's supervisor records nothing (finish_attempt checks it).
      local::suspend_job(st_.db, row->id, "suspended by lanectl suspend");
    } catch (const JobTransitionRefused&) {
      throw UsageError("job '" + name + "' is " + to_string(row->status) +
                       "; only a Pending or Running job can be suspended");
    }
    const bool running = row->status == JobStatus::kRunning;
    add_event(st_.db, row->id, "job/" + name, "Normal", "Suspended",
              running ? "job suspended; its processes were stopped" : "job suspended before it started");
    if (running && row->sup_pid > 0) effects.terminate.emplace_back(row->sup_pid, row->sup_start);
    effects.merge(run_scheduling_pass(st_.db, st_.paths));  // its GPUs go to waiting jobs
    tx.commit();
  }
  terminate_supervisors(effects);
  return SwitchResult::kDone;
}

SwitchResult LocalJobs::resume_job(const std::string& name, const std::string& project) {
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    auto row = load_job_row(st_.db, project, name, false);
    if (!row) return SwitchResult::kNoJob;
    try {
      local::resume_job(st_.db, row->id, "waiting for the scheduler");
    } catch (const JobTransitionRefused&) {
      throw UsageError("job '" + name + "' is " + to_string(row->status) + ", not Suspended; `lanectl resume` only "
                       "resumes a job stopped with `lanectl suspend`");
    }
    add_event(st_.db, row->id, "job/" + name, "Normal", "Resumed", "job resumed; waiting for the scheduler");
    effects = run_scheduling_pass(st_.db, st_.paths);
    tx.commit();
  }
  terminate_supervisors(effects);
  return SwitchResult::kDone;
}

}  // namespace lane::submit::local
