// lanectl wait --for=condition=Succeeded|Failed|Running JOB... [--timeout 30s]: as kubectl wait,
// polls each job until it meets the condition (exit 0), and fails with the reason when the
// timeout passes or a job reaches a state from which the condition can never hold.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "submit/core/duration.h"
#include "submit/core/errors.h"

namespace lane::cli {

namespace {

using submit::JobStatus;

struct WaitOptions {
  std::vector<std::string> names;
  std::string project, condition, timeout = "30s";
};

// "condition=Succeeded" (any case) → the status it waits for.
JobStatus parse_condition(const std::string& text) {
  auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
  };
  for (JobStatus s : {JobStatus::kSucceeded, JobStatus::kFailed, JobStatus::kRunning})
    if (lower(text) == lower(std::string("condition=") + submit::to_string(s))) return s;
  throw UsageError("--for '" + text + "': use --for=condition=Succeeded, --for=condition=Failed or "
                   "--for=condition=Running");
}

// Whether a job in `now` can still come to `want`: a finished job stays as it ended.
bool still_possible(JobStatus now, JobStatus want) {
  const bool ended = now == JobStatus::kSucceeded || now == JobStatus::kFailed || now == JobStatus::kDeleted;
  return !ended || now == want;
}

// Waits for one job until `deadline`; prints "job/NAME condition met" when it does.
void wait_for_job(const std::string& name, const std::string& project, JobStatus want, const WaitOptions& o,
                  std::chrono::steady_clock::time_point deadline, CliContext& ctx) {
  const char* wanted = submit::to_string(want);
  for (bool seen = false;; seen = true) {
    auto job = ctx.jobs().describe_job(name, project);
    if (!job && seen) throw submit::job_deleted(name, project);
    if (!job)
      throw Error("job '" + name + "' does not exist in project '" + project +
                  "'. If the job exists in a different project, use -p <project-name>.");
    if (job->status == want) {
      ctx.out << "job/" << name << " condition met\n";
      ctx.out.flush();
      return;
    }
    if (!still_possible(job->status, want))
      throw Error(fmt::format("job {} is {}{}; it can never be {}", name, submit::to_string(job->status),
                              job->status_reason.empty() ? "" : " (" + job->status_reason + ")", wanted));
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error(fmt::format("timed out after {} waiting for job {} to be {} (it is {}); give a longer --timeout",
                              o.timeout, name, wanted, submit::to_string(job->status)));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

void run_wait(const WaitOptions& o, CliContext& ctx) {
  if (o.condition.empty())
    throw UsageError("--for is required: --for=condition=Succeeded, --for=condition=Failed or --for=condition=Running");
  const JobStatus want = parse_condition(o.condition);
  const auto seconds = submit::parse_duration_seconds(o.timeout, true);
  if (!seconds) throw UsageError("--timeout '" + o.timeout + "': use a duration such as 30s, 5m or 1h (0: check once)");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*seconds);
  const std::string project = ctx.project(o.project);
  for (const auto& name : o.names) wait_for_job(name, project, want, o, deadline, ctx);
}

}  // namespace

void add_wait_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<WaitOptions>();
  auto* cmd = app.add_subcommand("wait", "Wait until jobs meet a condition: --for=condition=Succeeded|Failed|Running");
  cmd->add_option("NAME", o->names, "Job names")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("--for", o->condition, "condition=Succeeded | condition=Failed | condition=Running");
  cmd->add_option("--timeout", o->timeout, "How long to wait in all (default 30s; 0: check once)");
  cmd->callback([o, &ctx] { run_wait(*o, ctx); });
}

}  // namespace lane::cli
