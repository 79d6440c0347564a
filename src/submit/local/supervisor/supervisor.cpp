#include "submit/local/supervisor/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/job_api.h"
#include "submit/local/supervisor/job_api_snapshot.h"
#include "submit/local/state/job_expiry.h"
#include "submit/local/runtime/job_launch.h"
#include "submit/local/state/project_users.h"
#include "submit/local/runtime/log_files.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/runtime/sandbox.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

int grace_seconds() {
  const char* v = std::getenv("LANECTL_GRACE_SECONDS");
  return v && *v ? std::max(0, std::atoi(v)) : 10;
}

struct Outcome {
  int exit_code = 0;
  std::string reason;
};

Outcome outcome_of(int status) {
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    return {code, code == 0 ? "" : fmt::format("the command exited with code {}", code)};
  }
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return {128 + sig, fmt::format("the command was killed by signal {} ({})", sig, strsignal(sig))};
}

int64_t count_events(Database& db, int64_t job_id, const char* reason) {
  auto count = db.prepare("SELECT COUNT(*) FROM events WHERE job_id = ?1 AND reason = ?2");
  count.bind(1, job_id).bind(2, std::string(reason));
  return count.step() ? count.integer(0) : 0;
}

// The job runs again: back to Pending (the pass that follows starts it), with an event.
void run_again(Database& db, const JobRow& row, const char* type, const char* event, const std::string& reason) {
  run_job_again(db, row.id, row.attempt, reason);
  add_event(db, row.id, "job/" + row.name, type, event, reason);
}

// --backoff-limit N: a failed attempt runs again while fewer than N retries were made (counted
// by their BackoffRetry events). --completions N: a successful run is followed by the next one
// until N runs succeeded (RunSucceeded events), one at a time. True when the job runs again.
bool run_again_after(Database& db, const JobRow& row, const Outcome& out, bool ok) {
  JobSpec spec;
  try {
    spec = spec_from_json(nlohmann::json::parse(row.spec_json));
  } catch (const std::exception&) {
    return false;
  }
  if (!ok) {
    const int limit = spec.backoff_limit.value_or(0);
    const int64_t retries = count_events(db, row.id, "BackoffRetry");
    if (retries >= limit) return false;
    run_again(db, row, "Warning", "BackoffRetry",
              fmt::format("{}; retry {} of {} (--backoff-limit)", out.reason, retries + 1, limit));
    return true;
  }
  const int completions = spec.completions.value_or(1);
  const int64_t done = count_events(db, row.id, "RunSucceeded") + 1;
  if (done >= completions) return false;
  run_again(db, row, "Normal", "RunSucceeded",
            fmt::format("run {} of {} succeeded; the next one follows (--completions)", done, completions));
  return true;
}

// Records the attempt's end and lets waiting jobs start, unless the job was meanwhile
// preempted (attempt changed) or deleted (row gone): then this attempt's result is moot.
// Also deletes the finished jobs whose --ttl-after-finish has passed (this one with 0s).
void finish_attempt(Database& db, const Paths& paths, int64_t id, int attempt, const Outcome& out) {
  PassEffects effects;
  std::vector<int64_t> expired;
  {
    WriteTransaction tx(db);
    auto row = load_job_row_by_id(db, id, true);
    if (!row || row->attempt != attempt || row->status != JobStatus::kRunning) return;
    bool ok = out.exit_code == 0 && out.reason.empty();
    if (run_again_after(db, *row, out, ok)) {
      effects = run_scheduling_pass(db, paths);
      tx.commit();
      terminate_supervisors(effects);
      return;
    }
    finish_job(db, id, attempt, ok, out.reason, out.exit_code, now_unix_ms());
    add_event(db, id, "job/" + row->name, ok ? "Normal" : "Warning", ok ? "Completed" : "Failed",
              ok ? "the command exited with code 0" : out.reason);
    effects = run_scheduling_pass(db, paths);
    expired = delete_expired_jobs(db, now_unix_ms());
    tx.commit();
  }
  terminate_supervisors(effects);
  remove_job_dirs(paths, expired);
}

}  // namespace

int supervise_job(const fs::path& home, int64_t id, int attempt) {
  Paths paths{home};
  Database db(paths.db());

  // Block SIGTERM/SIGINT; they arrive through a signalfd in the poll loop below.
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);

  JobRow row;
  JobUser user;
  {
    WriteTransaction tx(db);  // waits until the pass that started us has committed
    auto r = load_job_row_by_id(db, id, true);
    if (!r || r->attempt != attempt || r->status != JobStatus::kRunning) return 0;
    row = *r;
    user = job_user_for_project(db, row.project);
    tx.commit();
  }
  JobSpec spec = spec_from_json(nlohmann::json::parse(row.spec_json));
  const fs::path job_dir = paths.job_dir(id);
  fs::create_directories(job_dir);

  LaunchPlan plan;
  int api_fd = -1;
  try {
    const std::vector<std::string> volume_paths = paths.claim_dirs(spec);
    plan = make_launch_plan(spec, row.placement, volume_paths, home.string(), self_executable());
    plan.uid = user.uid;
    plan.gid = user.gid;
    write_account_files(job_dir / "etc", user);
    plan.passwd_file = (job_dir / "etc" / "passwd").string();
    plan.group_file = (job_dir / "etc" / "group").string();
    plan.api_dir = (job_dir / "api").string();
    fs::create_directories(plan.api_dir);
    api_fd = job_api_listen(fs::path(plan.api_dir) / "api.sock", user.uid, user.gid);
    hand_volumes_to(volume_paths, user);
  } catch (const std::exception& e) {
    finish_attempt(db, paths, id, attempt, {127, std::string("cannot start: ") + e.what()});
    return 0;
  }

  TimestampedLogWriter log(job_dir / "output.log");
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    finish_attempt(db, paths, id, attempt, {127, "cannot start: pipe() failed"});
    return 0;
  }
  SandboxedJob job;
  try {
    job = start_sandboxed(plan, out_pipe[1], old_mask);
  } catch (const std::exception& e) {
    close(out_pipe[1]);
    finish_attempt(db, paths, id, attempt, {127, e.what()});
    return 0;
  }
  close(out_pipe[1]);
  const pid_t child = job.pid;

  bool stop_requested = false;
  {
    WriteTransaction tx(db);
    try {
      record_job_processes(db, id, attempt, child, process_start_time(child));
    } catch (const JobTransitionRefused&) {
      stop_requested = true;  // preempted, suspended or deleted meanwhile: this attempt is over
    }
    tx.commit();
  }

  int status = 0;
  bool child_done = false, pipe_open = true, killed = false;
  std::optional<Clock::time_point> kill_at, drain_until;
  std::vector<pid_t> api_handlers;
  auto request_stop = [&] {
    if (kill_at) return;
    kill(-child, SIGTERM);
    kill_at = Clock::now() + std::chrono::seconds(grace_seconds());
  };
  if (stop_requested) request_stop();
  auto answer = [&](const nlohmann::json& request, pid_t peer) { return answer_job_api(home, id, request, peer); };

  char buf[65536];
  while (true) {
    pollfd fds[3] = {{sig_fd, POLLIN, 0}, {api_fd, POLLIN, 0}, {out_pipe[0], POLLIN, 0}};
    poll(fds, pipe_open ? 3 : 2, 100);
    if (pipe_open && (fds[2].revents & (POLLIN | POLLHUP))) {
      ssize_t n = read(out_pipe[0], buf, sizeof buf);
      if (n > 0) log.write(buf, static_cast<size_t>(n));
      else pipe_open = false;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info;
      ssize_t ignored = read(sig_fd, &info, sizeof info);
      (void)ignored;
      request_stop();
    }
    if (fds[1].revents & POLLIN)
      if (pid_t h = job_api_serve_one(api_fd, answer); h > 0) api_handlers.push_back(h);
    for (auto it = api_handlers.begin(); it != api_handlers.end();)
      it = waitpid(*it, nullptr, WNOHANG) == 0 ? it + 1 : api_handlers.erase(it);
    if (kill_at && !killed && Clock::now() >= *kill_at) {
      kill(-child, SIGKILL);
      killed = true;
    }
    if (!child_done && waitpid(child, &status, WNOHANG) == child) {
      child_done = true;
      status = sandboxed_wait_status(job, status);
      drain_until = Clock::now() + std::chrono::seconds(1);  // daemons left in the group may hold the pipe
    }
    if (child_done && (!pipe_open || Clock::now() >= *drain_until)) break;
  }
  kill(-child, SIGKILL);  // nothing of the job outlives its attempt (its PID namespace is gone already)
  close(api_fd);
  for (pid_t h : api_handlers) waitpid(h, nullptr, 0);
  log.flush_partial();
  finish_attempt(db, paths, id, attempt, outcome_of(status));
  return 0;
}

int rank_exec(int argc, char** argv) {
  // argv: lanectl __rank GPUS -- CMD ARGS...
  if (argc < 5 || std::string(argv[3]) != "--") {
    std::cerr << "usage: lanectl __rank 'GPUS;GPUS;...' -- CMD ARGS...\n";
    return 2;
  }
  std::string all = argv[2];
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK");
  int rank = rank_env ? std::atoi(rank_env) : 0;
  std::string mine;
  size_t start = 0;
  for (int i = 0; i <= rank; ++i) {
    size_t end = all.find(';', start);
    mine = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) {
      if (i < rank) mine.clear();
      break;
    }
    start = end + 1;
  }
  setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
  execvp(argv[4], argv + 4);
  std::cerr << "lanectl __rank: exec " << argv[4] << ": " << std::strerror(errno) << "\n";
  return 127;
}

int run_internal_verb(int argc, char** argv) {
  if (argc < 2) return -1;
  std::string verb = argv[1];
  if (verb == "__rank") return rank_exec(argc, argv);
  if (verb != "__supervise") return -1;
  if (argc != 5) {
    std::cerr << "usage: lanectl __supervise HOME JOB_ID ATTEMPT (internal)\n";
    return 2;
  }
  try {
    return supervise_job(argv[2], std::atoll(argv[3]), std::atoi(argv[4]));
  } catch (const std::exception& e) {
    std::cerr << "lanectl __supervise: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace lane::submit::local
