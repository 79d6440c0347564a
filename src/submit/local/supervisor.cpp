#include "submit/local/supervisor.h"

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

#include "common/error.h"
#include "submit/core/workload_json.h"
#include "submit/local/job_launch.h"
#include "submit/local/log_files.h"
#include "submit/local/process_identity.h"
#include "submit/local/sandbox.h"
#include "submit/local/scheduling_pass.h"

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

// Records the attempt's end and lets waiting jobs start, unless the job was meanwhile
// preempted (attempt changed) or deleted (row gone): then this attempt's result is moot.
void finish_attempt(Database& db, const Paths& paths, int64_t id, int attempt, const Outcome& out) {
  PassEffects effects;
  {
    WriteTransaction tx(db);
    auto row = load_job_row_by_id(db, id, false);
    if (!row || row->attempt != attempt || row->status != "Running") return;
    bool ok = out.exit_code == 0 && out.reason.empty();
    db.prepare("UPDATE jobs SET status = ?1, reason = ?2, exit_code = ?3, finished_ms = ?4, sup_pid = 0 WHERE id = ?5")
        .bind(1, std::string(ok ? "Succeeded" : "Failed")).bind(2, out.reason)
        .bind(3, static_cast<int64_t>(out.exit_code)).bind(4, now_ms()).bind(5, id).run();
    add_event(db, id, "job/" + row->name, ok ? "Normal" : "Warning", ok ? "Completed" : "Failed",
              ok ? "the command exited with code 0" : out.reason);
    effects = run_scheduling_pass(db, paths);
    tx.commit();
  }
  terminate_supervisors(effects);
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
  {
    WriteTransaction tx(db);  // waits until the pass that started us has committed
    auto r = load_job_row_by_id(db, id, true);
    if (!r || r->attempt != attempt || r->status != "Running") return 0;
    row = *r;
    tx.commit();
  }
  JobSpec spec = spec_from_json(nlohmann::json::parse(row.spec_json));
  fs::create_directories(paths.job_dir(id));

  LaunchPlan plan;
  try {
    std::vector<std::string> volume_paths;
    for (const auto& pvc : spec.pvcs) volume_paths.push_back((paths.volumes_dir() / pvc.claim).string());
    plan = make_launch_plan(spec, row.placement, volume_paths, home.string(), self_executable());
  } catch (const std::exception& e) {
    finish_attempt(db, paths, id, attempt, {127, std::string("cannot start: ") + e.what()});
    return 0;
  }

  TimestampedLogWriter log(paths.job_dir(id) / "output.log");
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    finish_attempt(db, paths, id, attempt, {127, "cannot start: pipe() failed"});
    return 0;
  }
  pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    signal(SIGPIPE, SIG_DFL);
    exec_in_sandbox(plan);
  }
  close(out_pipe[1]);
  if (child < 0) {
    finish_attempt(db, paths, id, attempt, {127, "cannot start: fork() failed"});
    return 0;
  }
  setpgid(child, child);

  bool stop_requested = false;
  {
    WriteTransaction tx(db);
    auto r = load_job_row_by_id(db, id, false);
    stop_requested = !r || r->attempt != attempt;
    if (!stop_requested)
      db.prepare("UPDATE jobs SET child_pgid = ?1, child_start = ?2 WHERE id = ?3")
          .bind(1, static_cast<int64_t>(child)).bind(2, static_cast<int64_t>(process_start_time(child)))
          .bind(3, id).run();
    tx.commit();
  }

  int status = 0;
  bool child_done = false, pipe_open = true, killed = false;
  std::optional<Clock::time_point> kill_at, drain_until;
  auto request_stop = [&] {
    if (kill_at) return;
    kill(-child, SIGTERM);
    kill_at = Clock::now() + std::chrono::seconds(grace_seconds());
  };
  if (stop_requested) request_stop();

  char buf[65536];
  while (true) {
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {sig_fd, POLLIN, 0}};
    poll(pipe_open ? fds : fds + 1, pipe_open ? 2 : 1, 100);
    if (pipe_open && (fds[0].revents & (POLLIN | POLLHUP))) {
      ssize_t n = read(out_pipe[0], buf, sizeof buf);
      if (n > 0) log.write(buf, static_cast<size_t>(n));
      else pipe_open = false;
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info;
      ssize_t ignored = read(sig_fd, &info, sizeof info);
      (void)ignored;
      request_stop();
    }
    if (kill_at && !killed && Clock::now() >= *kill_at) {
      kill(-child, SIGKILL);
      killed = true;
    }
    if (!child_done && waitpid(child, &status, WNOHANG) == child) {
      child_done = true;
      drain_until = Clock::now() + std::chrono::seconds(1);  // daemons left in the group may hold the pipe
    }
    if (child_done && (!pipe_open || Clock::now() >= *drain_until)) break;
  }
  kill(-child, SIGKILL);  // nothing of the job outlives its attempt
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
