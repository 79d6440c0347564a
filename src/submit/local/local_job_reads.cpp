#include "submit/local/local_jobs.h"

#include <functional>

#include "common/error.h"
#include "submit/core/errors.h"
#include "submit/local/runtime/log_files.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

std::vector<JobInfo> LocalJobs::list_jobs(const std::optional<std::string>& project) {
  // Rows become jobs as SQLite returns them, into a vector sized once: over 10,000 jobs a vector
  // of rows and a vector grown by doubling made page faults a quarter of `list`'s time.
  ReadTransaction tx(st_.db);
  std::vector<JobInfo> out;
  out.reserve(count_job_rows(st_.db, project));
  for_each_job_row(st_.db, project, false, false, [&](JobRow&& row) { out.push_back(job_info_from_row(row, false)); });
  return out;
}

std::optional<JobInfo> LocalJobs::describe_job(const std::string& name, const std::string& project) {
  ReadTransaction tx(st_.db);
  auto row = load_job_row(st_.db, project, name, true);
  if (!row) return std::nullopt;
  JobInfo info = job_info_from_row(*row);
  info.events = load_events(st_.db, row->id);
  return info;
}

void LocalJobs::stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                            std::ostream& out) {
  auto row = load_job_row(st_.db, project, name, false);
  if (!row)
    throw Error("job '" + name + "' does not exist in project '" + project +
                "'; check the name with `lanectl list jobs -p " + project + "`");
  JobInfo info = job_info_from_row(*row);
  std::function<bool(const std::string&)> filter;
  if (!opts.pod.empty()) {
    bool known = false;
    for (const auto& p : info.pods) known = known || p.name == opts.pod;
    if (!known)
      throw UsageError("--pod " + opts.pod + ": job '" + name + "' has no such pod; see `lanectl describe job " +
                       name + " -p " + project + "`");
    if (info.spec.type == JobType::kPyTorch)
      throw UsageError("--pod: locally the ranks of PyTorch job '" + name + "' write one log (as torchrun does); "
                       "drop --pod, and print the RANK variable in the job's lines to tell them apart");
    std::string worker_prefix = name + "-worker-";
    if (opts.pod.rfind(worker_prefix, 0) == 0) {
      // MPI ranks share the launcher's output; --tag-output marks each line with its rank.
      std::string tag = "[1," + opts.pod.substr(worker_prefix.size()) + "]<";
      filter = [tag](const std::string& line) { return line.rfind(tag, 0) == 0; };
    }
  }
  fs::path path = st_.paths.job_dir(row->id) / "output.log";
  if (!opts.follow && !fs::exists(path) && row->status == JobStatus::kPending)
    throw Error("job '" + name + "' has not started yet (" + row->reason + "); see `lanectl describe job " +
                name + " -p " + project + "`");
  int64_t id = row->id;
  bool deleted = false;
  auto finished = [this, id, &deleted] {
    auto r = load_job_row_by_id(st_.db, id, false);
    deleted = !r;
    return !r || is_terminal(r->status);
  };
  read_log(path, opts, filter, finished, out);
  if (deleted) throw job_deleted(name, project);
}

}  // namespace lane::submit::local
