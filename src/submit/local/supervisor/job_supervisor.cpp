#include "submit/local/supervisor/job_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/clock.h"
#include "submit/core/workload_json.h"
#include "submit/local/job_freeze.h"
#include "submit/local/runtime/cgroup_freezer.h"
#include "submit/local/runtime/job_api.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/state/job_expiry.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/project_users.h"
#include "submit/local/state/scheduling_pass.h"
#include "submit/local/supervisor/job_api_snapshot.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int UniqueFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

StopSignals::StopSignals() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, &previous_);
  fd_.reset(signalfd(-1, &mask, SFD_CLOEXEC));
}

StopSignals::~StopSignals() {
  fd_.reset();
  sigprocmask(SIG_SETMASK, &previous_, nullptr);
}

void StopSignals::consume() {
  signalfd_siginfo info;
  ssize_t ignored = read(fd_.get(), &info, sizeof info);
  (void)ignored;
}

namespace {

int grace_seconds() {
  const char* v = std::getenv("LANECTL_GRACE_SECONDS");
  return v && *v ? std::max(0, std::atoi(v)) : 10;
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

}  // namespace

JobSupervisor::JobSupervisor(const fs::path& home, int64_t job_id, int attempt)
    : paths_{home}, db_(paths_.db()), id_(job_id), attempt_(attempt), reserve_(home) {}

JobSupervisor::~JobSupervisor() {
  if (job_.status_fd >= 0) close(job_.status_fd);
}

void JobSupervisor::run() {
  if (!claim_attempt()) return;
  fs::create_directories(paths_.job_dir(id_));
  try {
    prepare_launch();
  } catch (const std::exception& e) {
    return finish({127, std::string("cannot start: ") + e.what()});
  }
  log_.emplace(paths_.job_dir(id_) / "output.log", log_limit_);
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return finish({127, "cannot start: pipe() failed"});
  out_fd_.reset(out_pipe[0]);
  UniqueFd write_end(out_pipe[1]);
  try {
    job_ = start_sandboxed(plan_, write_end.get(), signals_.previous_mask());
  } catch (const std::exception& e) {
    return finish({127, e.what()});
  }
  write_end.reset();
  if (!record_processes()) request_stop();
  follow_job();
  kill(-job_.pid, SIGKILL);  // nothing of the job outlives its attempt (its PID namespace is gone already)
  check_disk(/*now=*/true);
  api_fd_.reset();
  reap_api_handlers(/*wait=*/true);
  log_->flush_partial();
  const Outcome out = outcome();
  cgroup_.remove();
  finish(out);
}

bool JobSupervisor::claim_attempt() {
  {
    WriteTransaction tx(db_);  // waits until the pass that started us has committed
    auto r = load_job_row_by_id(db_, id_, true);
    if (!r || r->attempt != attempt_ || r->status != JobStatus::kRunning) return false;
    row_ = *r;
    user_ = job_user_for_project(db_, row_.project);
    tx.commit();
  }
  spec_ = spec_from_json(nlohmann::json::parse(row_.spec_json));
  return true;
}

void JobSupervisor::prepare_launch() {
  const fs::path job_dir = paths_.job_dir(id_);
  const std::vector<std::string> volume_paths = paths_.claim_dirs(spec_);
  plan_ = make_launch_plan(spec_, row_.placement, volume_paths, paths_.home.string(), self_executable());
  plan_.uid = user_.uid;
  plan_.gid = user_.gid;
  write_account_files(job_dir / "etc", user_);
  plan_.passwd_file = (job_dir / "etc" / "passwd").string();
  plan_.group_file = (job_dir / "etc" / "group").string();
  plan_.api_dir = (job_dir / "api").string();
  fs::create_directories(plan_.api_dir);
  api_fd_.reset(job_api_listen(fs::path(plan_.api_dir) / "api.sock", user_.uid, user_.gid));
  hand_volumes_to(volume_paths, user_);
  // Named after this supervisor, so that a later one can tell a stale group (its pid gone).
  log_limit_ = job_log_limit();
  reserve_.ensure();
  for (const auto& m : plan_.mounts) writes_home_fs_ = writes_home_fs_ || (!m.read_only && reserve_.on_same_file_system(m.source));
  cgroup_ = JobCgroup::create(job_cgroup_name(getpid(), id_), cgroup_limits(spec_));
  plan_.cgroup_procs = cgroup_.procs_files();
  host_oom_before_ = host_oom_kills();
}

// Records the job's process group; false when the attempt ended meanwhile (preempted,
// suspended, deleted), and the job is to be stopped at once.
bool JobSupervisor::record_processes() {
  WriteTransaction tx(db_);
  try {
    record_job_processes(db_, id_, attempt_, job_.pid, process_start_time(job_.pid));
    if (!cgroup_.active() && (spec_.memory.given() || spec_.cpu.given()))
      add_event(db_, id_, "job/" + row_.name, "Warning", "LimitsNotEnforced",
                "this host offers lanectl no cgroup (cgroup v2, or the v1 memory/cpu/pids controllers as root): "
                "--memory and --cpu are not enforced");
  } catch (const JobTransitionRefused&) {
    return false;
  }
  tx.commit();
  return true;
}

void JobSupervisor::follow_job() {
  char buf[65536];
  // After the job's end, its output is read until EOF, or for a second: daemons left in its
  // group may hold the pipe.
  do {
    poll_once(buf, sizeof buf);
  } while (!child_done_ || (out_fd_.get() >= 0 && Clock::now() < *drain_until_));
}

void JobSupervisor::poll_once(char* buf, size_t size) {
  const bool pipe_open = out_fd_.get() >= 0;
  pollfd fds[3] = {{signals_.fd(), POLLIN, 0}, {api_fd_.get(), POLLIN, 0}, {out_fd_.get(), POLLIN, 0}};
  poll(fds, pipe_open ? 3 : 2, 100);
  if (pipe_open && (fds[2].revents & (POLLIN | POLLHUP))) {
    ssize_t n = read(out_fd_.get(), buf, size);
    if (n > 0) log_->write(buf, static_cast<size_t>(n));
    else out_fd_.reset();
  }
  if (fds[0].revents & POLLIN) {
    signals_.consume();
    request_stop();
  }
  if (fds[1].revents & POLLIN) {
    auto answer = [this](const nlohmann::json& request, pid_t peer) {
      return answer_job_api(paths_.home, id_, request, peer);
    };
    if (pid_t h = job_api_serve_one(api_fd_.get(), answer, api_handlers_.size()); h > 0) api_handlers_.push_back(h);
  }
  reap_api_handlers(/*wait=*/false);
  if (!child_done_) check_disk(/*now=*/false);
  if (!child_done_) thaw_if_abandoned();
  if (kill_at_ && !killed_ && Clock::now() >= *kill_at_) {
    kill(-job_.pid, SIGKILL);
    killed_ = true;
  }
  if (!child_done_ && waitpid(job_.pid, &status_, WNOHANG) == job_.pid) {
    child_done_ = true;
    status_ = sandboxed_wait_status(job_, status_);
    drain_until_ = Clock::now() + std::chrono::seconds(1);
  }
}

void JobSupervisor::request_stop() {
  if (kill_at_) return;
  kill(-job_.pid, SIGTERM);
  kill_at_ = Clock::now() + std::chrono::seconds(grace_seconds());
}

// A full file system under LANECTL_HOME (checked every 200 ms, and once at the job's end): the
// state's reserve is released so that the end can be recorded and the CLI keeps working; a job
// that writes there (a volume on it, or its log) is stopped at once, before it eats that space.
void JobSupervisor::check_disk(bool now) {
  if (disk_full_ || (!now && Clock::now() < next_disk_check_)) return;
  next_disk_check_ = Clock::now() + std::chrono::milliseconds(200);
  if (!log_->disk_full() && !reserve_.file_system_full()) return;
  disk_full_ = true;
  if (!child_done_ && (writes_home_fs_ || log_->disk_full())) {
    kill(-job_.pid, SIGKILL);
    killed_ = stopped_for_disk_ = true;
    kill_at_ = Clock::now();
  }
  reserve_.release();
  log_->note("lanectl: the file system holding LANECTL_HOME is full" +
             std::string(stopped_for_disk_ ? "; the job was stopped" : ""));
}

// A snapshot killed while it held the job frozen (job_freeze.h) leaves it frozen: checked every second.
void JobSupervisor::thaw_if_abandoned() {
  if (Clock::now() < next_thaw_check_) return;
  next_thaw_check_ = Clock::now() + std::chrono::seconds(1);
  if (thaw_abandoned(job_freezer(job_cgroup_name(getpid(), id_)), freeze_lock_file(paths_, id_)))
    log_->note("lanectl: the job was left frozen by a snapshot that did not finish; thawed");
}

void JobSupervisor::reap_api_handlers(bool wait) {
  for (auto it = api_handlers_.begin(); it != api_handlers_.end();)
    it = waitpid(*it, nullptr, wait ? 0 : WNOHANG) == 0 ? it + 1 : api_handlers_.erase(it);
}

JobSupervisor::Outcome JobSupervisor::outcome() const {
  Outcome out;
  if (WIFEXITED(status_)) {
    out.exit_code = WEXITSTATUS(status_);
    if (out.exit_code != 0) out.reason = fmt::format("the command exited with code {}", out.exit_code);
  } else {
    int sig = WIFSIGNALED(status_) ? WTERMSIG(status_) : 0;
    out = {128 + sig, fmt::format("the command was killed by signal {} ({})", sig, strsignal(sig))};
  }
  if (out.exit_code == 0) return out;
  if (disk_full_ && (stopped_for_disk_ || writes_home_fs_)) {
    out.reason = fmt::format("DiskFull: the file system holding LANECTL_HOME ({}) filled up while the job wrote to "
                             "it; lanectl released the space kept for the state{}. Free space (`lanectl delete` "
                             "jobs or volumes) before resubmitting; {}",
                             paths_.home.string(), stopped_for_disk_ ? " and stopped the job" : "", out.reason);
    out.event = "DiskFull";
    return out;
  }
  if (auto oom = out_of_memory()) {
    out.reason = *oom + "; " + out.reason;
    out.event = "OOMKilled";
  }
  return out;
}

// Why a failed job ran out of memory: the kills counted by its memory cgroup; without one, the
// host's OOM kill counter rising during the job while the command got a SIGKILL lanectl did
// not send ("probably").
std::optional<std::string> JobSupervisor::out_of_memory() const {
  const std::string had = !spec_.memory.given() ? "no --memory limit, the host's memory"
                                               : "its memory limit --memory " + spec_.memory.text();
  if (auto kills = cgroup_.oom_kills())
    return *kills == 0 ? std::nullopt
                       : std::optional(fmt::format("OOMKilled: out of memory, the kernel killed {} process(es) of "
                                                   "the job at {}",
                                                   *kills, had));
  const auto now = host_oom_kills();
  const bool foreign_kill = WIFSIGNALED(status_) && WTERMSIG(status_) == SIGKILL && !killed_;
  if (!foreign_kill || !now || !host_oom_before_ || *now <= *host_oom_before_) return std::nullopt;
  return fmt::format("probably OOMKilled: the command got a SIGKILL lanectl did not send while the host's OOM "
                     "killer killed {} process(es) (no memory cgroup here to tell for sure; the job had {})",
                     *now - *host_oom_before_, had);
}

// --backoff-limit N: a failed attempt runs again while fewer than N retries were made (counted
// by their BackoffRetry events). --completions N: a successful run is followed by the next one
// until N runs succeeded (RunSucceeded events), one at a time. True when the job runs again.
bool JobSupervisor::run_again_after(const JobRow& row, const Outcome& out, bool ok) {
  JobSpec spec;
  try {
    spec = spec_from_json(nlohmann::json::parse(row.spec_json));
  } catch (const std::exception&) {
    return false;
  }
  if (!ok) {
    const int limit = spec.backoff_limit.value_or(0);
    const int64_t retries = count_events(db_, row.id, "BackoffRetry");
    if (retries >= limit) return false;
    run_again(db_, row, "Warning", "BackoffRetry",
              fmt::format("{}; retry {} of {} (--backoff-limit)", out.reason, retries + 1, limit));
    return true;
  }
  const int completions = spec.completions.value_or(1);
  const int64_t done = count_events(db_, row.id, "RunSucceeded") + 1;
  if (done >= completions) return false;
  run_again(db_, row, "Normal", "RunSucceeded",
            fmt::format("run {} of {} succeeded; the next one follows (--completions)", done, completions));
  return true;
}

// Records the attempt's end (retried once after releasing the state's reserve) and lets waiting jobs start, unless the job was meanwhile
// preempted (attempt changed) or deleted (row gone): then this attempt's result is moot.
// Also deletes the finished jobs whose --ttl-after-finish has passed (this one with 0s).
void JobSupervisor::finish(const Outcome& out) {
  try {
    record_end(out);
  } catch (const std::exception&) {
    if (!reserve_.release()) throw;  // e.g. "database or disk is full": once more, with the reserve's space
    record_end(out);
  }
}

void JobSupervisor::record_end(const Outcome& out) {
  PassEffects effects;
  std::vector<int64_t> expired;
  {
    WriteTransaction tx(db_);
    auto row = load_job_row_by_id(db_, id_, true);
    if (!row || row->attempt != attempt_ || row->status != JobStatus::kRunning) return;
    const bool ok = out.exit_code == 0 && out.reason.empty();
    const bool again = run_again_after(*row, out, ok);
    if (!again) {
      finish_job(db_, id_, attempt_, ok, out.reason, out.exit_code, now_unix_ms());
      add_event(db_, id_, "job/" + row->name, ok ? "Normal" : "Warning", ok ? "Completed" : out.event,
                ok ? "the command exited with code 0" : out.reason);
    }
    effects = run_scheduling_pass(db_, paths_);
    if (!again) expired = delete_expired_jobs(db_, now_unix_ms());
    tx.commit();
  }
  terminate_supervisors(effects);
  remove_job_dirs(paths_, expired);
}

}  // namespace lane::submit::local
