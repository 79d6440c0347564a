// lanectl logs JOB: the chief pod's output (MPI: the launcher, whose lines carry [1,rank] tags).
#include <algorithm>

#include "cli/context.h"
#include "cli/duration_format.h"
#include "common/clock.h"
#include "common/error.h"
#include "submit/core/duration.h"

namespace lane::cli {

namespace {

struct LogsOptions {
  std::string name, project, since, since_time, pod;
  bool follow = false, timestamps = false;
  int64_t tail = -1;
};

void run_logs(const LogsOptions& o, CliContext& ctx) {
  submit::LogOptions opts;
  opts.follow = o.follow;
  opts.timestamps = o.timestamps;
  opts.pod = o.pod;
  if (o.tail < -1) throw UsageError("--tail " + std::to_string(o.tail) + ": use a number of lines >= 0 (or -1 for all)");
  opts.tail = o.tail;
  if (!o.since.empty()) {
    auto secs = submit::parse_duration_seconds(o.since);
    if (!secs) throw UsageError("--since '" + o.since + "': use a duration such as 5s, 2m, 3h or 1h30m");
    opts.since_seconds = *secs;
  }
  if (!o.since_time.empty()) {
    if (!o.since.empty()) throw UsageError("--since and --since-time cannot be combined; give one of them");
    auto t = parse_rfc3339_seconds(o.since_time);
    if (!t)
      throw UsageError("--since-time '" + o.since_time + "': use an RFC 3339 time such as 2021-03-05T16:23:42Z");
    int64_t now = now_unix_ms() / 1000;
    if (*t > now) throw UsageError("--since-time " + o.since_time + " is in the future; give a past time");
    // The API's sinceSeconds, rounded up so that lines of the given second are kept.
    opts.since_seconds = std::max<int64_t>(1, now - *t + 1);
  }
  ctx.jobs().stream_logs(o.name, ctx.project(o.project), opts, ctx.out);
}

}  // namespace

void add_logs_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand("logs", "Print a job's logs");
  cmd->footer("Examples:\n"
             "  lanectl logs train-1 --tail 20\n"
             "  lanectl logs train-1 -f                 # follow until the job ends\n"
             "  lanectl logs dist-train --pod dist-train-worker-1 --since 10m");
  cmd->add_option("NAME", o->name, "Job name")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_flag("-f,--follow", o->follow, "Keep printing until the job ends");
  cmd->add_option("-t,--tail", o->tail, "Only the last N lines (-1: all)");
  cmd->add_option("--since", o->since, "Only lines newer than a duration (5s, 2m, 3h)");
  cmd->add_option("--since-time", o->since_time, "Only lines since an RFC 3339 time (2021-03-05T16:23:42Z)");
  cmd->add_flag("--timestamps", o->timestamps, "Prefix each line with its RFC 3339 time");
  cmd->add_option("--pod", o->pod, "Pod name (default: the chief pod; MPI workers: <job>-worker-<rank>)");
  cmd->callback([o, &ctx] { run_logs(*o, ctx); });
}

}  // namespace lane::cli
