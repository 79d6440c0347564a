// lanectl attach on the local backend: the job's processes write to its output log (their stdin
// is /dev/null), so attaching means waiting for the job to run, following that log until the job
// ends, and returning the job's exit code. Nothing is forwarded to the job.
#include "submit/local/local_jobs.h"

#include <chrono>
#include <ostream>
#include <thread>

#include "common/error.h"
#include "submit/core/errors.h"

namespace lane::submit::local {

int LocalJobs::attach(const std::string& name, const std::string& project, const AttachOptions& opts,
                      std::ostream& out, std::ostream& err) {
  auto row = load_job_row(st_.db, project, name, false);
  if (!row)
    throw Error("job '" + name + "' does not exist in project '" + project + "'; check the name with `lanectl list jobs -p " +
                project + "`");
  if (opts.stdin || opts.tty)
    err << "note: the local backend does not forward stdin or a terminal to a job (its stdin is /dev/null); "
           "attach shows its output only\n";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(opts.wait_seconds);
  bool told = false;
  while (row->status == JobStatus::kPending || row->status == JobStatus::kSuspended) {
    if (!told) {
      err << "Waiting for job " << name << " to start (" << to_string(row->status) << ": " << row->reason << ")\n";
      told = true;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error("job '" + name + "' did not start within " + std::to_string(opts.wait_seconds) + " s (" +
                  row->reason + "); see `lanectl describe job " + name + " -p " + project + "`");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    row = load_job_row(st_.db, project, name, false);
    if (!row) throw job_deleted(name, project);
  }
  LogOptions logs;
  logs.follow = true;
  logs.pod = opts.pod;
  stream_logs(name, project, logs, out);
  row = load_job_row(st_.db, project, name, false);
  if (!row) throw job_deleted(name, project);
  if (row->exit_code) return *row->exit_code;
  return row->status == JobStatus::kSucceeded ? 0 : 1;
}

}  // namespace lane::submit::local
