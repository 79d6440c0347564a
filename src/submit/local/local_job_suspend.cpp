// lanectl suspend / resume on the local backend. Suspending stops the job's supervisor the way
// preemption does (scheduling_pass.cpp: SIGTERM, which the supervisor escalates to SIGKILL of
// the job's process group) and keeps the row 'Suspended': load_job_rows(.., active_only) and so
// the scheduling pass never see it. Resume makes it 'Pending' for the next pass.
#include "submit/local/local_jobs.h"

#include <signal.h>

#include "common/error.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {

bool LocalJobs::suspend_job(const std::string& name, const std::string& project) {
  std::optional<JobRow> row;
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    row = load_job_row(st_.db, project, name, false);
    if (!row) return false;
    if (row->status == "Suspended") return true;
    if (row->status != "Pending" && row->status != "Running")
      throw UsageError("job '" + name + "' is " + row->status + "; only a Pending or Running job can be suspended");
    // A new attempt: the stopped attempt's supervisor records nothing (finish_attempt checks it).
    release_job(st_.db, row->id, "Suspended", "suspended by lanectl suspend", /*new_attempt=*/true);
    add_event(st_.db, row->id, "job/" + name, "Normal", "Suspended",
              row->status == "Running" ? "job suspended; its processes were stopped" : "job suspended before it started");
    if (row->status == "Running" && row->sup_pid > 0) effects.terminate.emplace_back(row->sup_pid, row->sup_start);
    effects.merge(run_scheduling_pass(st_.db, st_.paths));  // its GPUs go to waiting jobs
    tx.commit();
  }
  terminate_supervisors(effects);
  return true;
}

bool LocalJobs::resume_job(const std::string& name, const std::string& project) {
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    auto row = load_job_row(st_.db, project, name, false);
    if (!row) return false;
    if (row->status != "Suspended")
      throw UsageError("job '" + name + "' is " + row->status + ", not Suspended; `lanectl resume` only resumes "
                       "a job stopped with `lanectl suspend`");
    st_.db.prepare("UPDATE jobs SET status = 'Pending', reason = 'waiting for the scheduler' WHERE id = ?1")
        .bind(1, row->id).run();
    add_event(st_.db, row->id, "job/" + name, "Normal", "Resumed", "job resumed; waiting for the scheduler");
    effects = run_scheduling_pass(st_.db, st_.paths);
    tx.commit();
  }
  terminate_supervisors(effects);
  return true;
}

}  // namespace lane::submit::local
