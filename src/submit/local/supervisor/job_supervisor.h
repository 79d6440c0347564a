#pragma once
// The per-job supervisor: a small detached process (`lanectl __supervise HOME JOB_ID ATTEMPT`,
// started by a scheduling pass with double fork + setsid) that runs one attempt of a job:
// starts it in its own process group inside the sandbox, timestamps its output into
// $LANECTL_HOME/jobs/<id>/output.log, answers the job API, stops the job on SIGTERM
// (preemption, delete: SIGTERM to the group, SIGKILL after LANECTL_GRACE_SECONDS, default 10),
// records the attempt's end and runs a scheduling pass so that waiting jobs can start. No
// daemon: the state database is the only meeting point. Every descriptor it opens is a member,
// closed when it is destroyed.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "submit/local/runtime/job_cgroup.h"
#include "submit/local/runtime/job_launch.h"
#include "submit/local/runtime/job_user.h"
#include "submit/local/runtime/log_files.h"
#include "submit/local/runtime/sandbox.h"
#include "submit/local/runtime/state_reserve.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {

// An open descriptor, closed with its owner.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release();
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// SIGTERM and SIGINT as a descriptor to poll: blocked for this process while the object lives
// (the previous mask is restored after), and read from a signalfd.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  int fd() const { return fd_.get(); }
  // The mask before: what the job's processes get.
  const sigset_t& previous_mask() const { return previous_; }
  // Reads one pending signal.
  void consume();

 private:
  sigset_t previous_;
  UniqueFd fd_;
};

class JobSupervisor {
 public:
  JobSupervisor(const std::filesystem::path& home, int64_t job_id, int attempt);
  ~JobSupervisor();
  JobSupervisor(const JobSupervisor&) = delete;
  JobSupervisor& operator=(const JobSupervisor&) = delete;

  // Runs the attempt to its end and records that end (also a start that failed). Returns
  // without running anything when the attempt is no longer the job's (preempted, suspended or
  // deleted before it began).
  void run();

 private:
  using Clock = std::chrono::steady_clock;
  struct Outcome {
    int exit_code = 0;
    std::string reason;
    std::string event = "Failed";  // the event of a failed end: Failed, OOMKilled, DiskFull
  };

  bool claim_attempt();
  void prepare_launch();
  void start_job();
  bool record_processes();
  void follow_job();
  void poll_once(char* buf, size_t size);
  void request_stop();
  void check_disk(bool now);
  void thaw_if_abandoned();
  void reap_api_handlers(bool wait);
  Outcome outcome() const;
  std::optional<std::string> out_of_memory() const;
  void finish(const Outcome& out);
  void record_end(const Outcome& out);
  bool run_again_after(const JobRow& row, const Outcome& out, bool ok);

  Paths paths_;
  Database db_;
  int64_t id_;
  int attempt_;
  StopSignals signals_;
  JobRow row_;
  JobSpec spec_;
  JobUser user_;
  LaunchPlan plan_;
  JobCgroup cgroup_;
  StateReserve reserve_;
  uint64_t log_limit_ = kDefaultLogBytes;
  bool writes_home_fs_ = false;  // a writable volume on LANECTL_HOME's file system
  bool disk_full_ = false, stopped_for_disk_ = false;
  Clock::time_point next_disk_check_{};
  Clock::time_point next_thaw_check_{};
  std::optional<int64_t> host_oom_before_;
  std::optional<TimestampedLogWriter> log_;
  UniqueFd api_fd_;
  UniqueFd out_fd_;  // the read end of the job's stdout+stderr pipe
  SandboxedJob job_;  // its status_fd, when still open, is closed with the supervisor
  int status_ = 0;
  bool child_done_ = false, killed_ = false;
  std::optional<Clock::time_point> kill_at_, drain_until_;
  std::vector<pid_t> api_handlers_;
};

}  // namespace lane::submit::local
