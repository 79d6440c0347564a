#pragma once
// Runs a LaunchPlan inside a private mount namespace: each volume bind-mounted at its mount
// path (read-only when asked), a fresh tmpfs on /dev/shm. The host's own directories at those
// paths are never written: the mounts exist only inside the job's namespace.
//   * as root: unshare(CLONE_NEWNS) + mount(2) directly (what `unshare -m` does);
//   * otherwise: bubblewrap (`bwrap --dev-bind / / --bind ...`), which uses a user namespace.
// LANECTL_SANDBOX=unshare|bwrap forces one of them.
#include "submit/local/job_launch.h"

namespace lane::submit::local {

// Call in the forked child only: sets up the namespace, environment and working directory and
// execs. Never returns; on failure prints the reason to stderr and exits 127.
[[noreturn]] void exec_in_sandbox(const LaunchPlan& plan);

// The mechanism exec_in_sandbox would use here: "unshare" or "bwrap".
std::string sandbox_mode();

}  // namespace lane::submit::local
