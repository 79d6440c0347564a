#pragma once
// Runs a LaunchPlan isolated from the host and from other jobs (docs/local-backend.md,
// "Isolation"):
//   * its own mount namespace whose root is a read-only tmpfs holding only the system's /usr
//     (and the /bin, /lib* links), a few files of /etc, the project's binaries, the job's volumes,
//     private /tmp and /dev/shm, /proc and a minimal /dev (sandbox_root.cpp);
//   * its own PID (and IPC) namespace, whose init is the process the supervisor tracks: killing
//     it kills every process of the job, including those that left the session (setsid); it
//     dies with the supervisor (PR_SET_PDEATHSIG);
//   * its own network namespace with only loopback, up (not with plan.host_network);
//   * the plan's cgroups (plan.cgroup_procs), joined by its first process before anything runs;
//   * the job's own uid/gid (not root), no new privileges, only the plan's environment.
// Two mechanisms build the same view:
//   * "unshare" (as root, the default there): clone(CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWIPC|CLONE_NEWNET) and
//     mount(2) directly, then the uid is dropped;
//   * "bwrap" (bubblewrap; the default for other users, who need its user namespace).
// LANECTL_SANDBOX=unshare|bwrap forces one of them.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "common/beneath.h"
#include "submit/local/runtime/job_launch.h"

namespace lane::submit::local {

// The mechanism start_sandboxed would use here: "unshare" or "bwrap".
std::string sandbox_mode();

struct SandboxedJob {
  pid_t pid = -1;       // host pid of the job's root process (its PID namespace's init, or bwrap)
  int status_fd = -1;   // unshare mode: init writes the command's wait status here before it exits
};

// Forks the job: the child leads a new process group, has stdin on /dev/null and stdout+stderr
// on `out_fd`, the signal mask `child_mask`, and never returns (on a setup failure it prints the
// reason to stderr and exits 127). Throws lane::Error when the fork itself fails.
SandboxedJob start_sandboxed(const LaunchPlan& plan, int out_fd, const sigset_t& child_mask);

// The command's wait status: what init reported on status_fd (closed here), else `init_status`.
int sandboxed_wait_status(SandboxedJob& job, int init_status);

// The job's network, PID and mount namespaces, opened from its PID 1 (the process
// start_sandboxed returned, identified by its pid and start time, or bubblewrap's child of it)
// once that has finished the job's root and started the command. Throws when no such process
// appears: never a process of the host's namespaces, never one whose root is still being built,
// never a process that took a reused pid.
struct JobNamespaces {
  UniqueFd net, pid, mnt;
};
JobNamespaces open_job_namespaces(pid_t sandbox_pid, long long sandbox_start);

// For `lanectl exec`, in a process that has joined the job's mount and PID namespaces: forks the
// command into the PID namespace with the plan's environment, working directory and user, waits
// for it and exits with its status. Never returns.
[[noreturn]] void exec_in_job(const LaunchPlan& plan, const std::vector<std::string>& argv);

// `lanectl __job-init [--command-last] -- CMD ARGS...`: PID 1 of a job's bubblewrap sandbox
// (--as-pid-1), which runs CMD and passes a stop on as the unshare mechanism's init does;
// returns 2 for bad usage or outside a new PID namespace, else exits with CMD's status (a
// signal N as 128+N).
int job_init_exec(int argc, char** argv);

// bubblewrap's command line for the plan (exposed for tests and --dry-run style inspection).
std::vector<std::string> bwrap_argv(const LaunchPlan& plan);

}  // namespace lane::submit::local
