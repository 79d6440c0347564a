#pragma once
// Holding a job's processes still: the cgroup freezer of its group (v1 `freezer.state`, v2
// `cgroup.freeze`). A frozen task runs no instruction and so writes nothing until it is thawed;
// a snapshot freezes the writers of a volume while it reads it (submit/local/job_freeze.h).
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/beneath.h"

namespace lane::submit::local {

// Why a job cannot be frozen on this host ("" when it can): not root, or neither cgroup v2 nor
// the v1 freezer controller under `root`.
std::string freezer_unavailable(const std::string& root = "/sys/fs/cgroup");

// The freezer of the job group `name` (job_cgroup.h) under `root`: the v2 group, or the v1
// freezer group; "" when it has none.
std::string job_freezer(const std::string& name, const std::string& root = "/sys/fs/cgroup");

// Whether the process `pid` (0: this one) is a member of the freezer group `dir`.
bool in_freezer(const std::string& dir, pid_t pid = 0);

// Whether any process is a member of the group `dir` (its cgroup.procs is not empty).
bool cgroup_populated(const std::string& dir);

// The groups this object froze, thawed when it is destroyed (a thaw that fails then is written to
// stderr with the command that thaws the group by hand). Not copyable.
class FrozenCgroups {
 public:
  explicit FrozenCgroups(std::chrono::milliseconds timeout = std::chrono::seconds(5)) : timeout_(timeout) {}
  ~FrozenCgroups();
  FrozenCgroups(const FrozenCgroups&) = delete;
  FrozenCgroups& operator=(const FrozenCgroups&) = delete;

  // Freezes the group `dir` (a v1 freezer or a v2 group) and waits until every task in it is
  // frozen. Throws lane::Error when it cannot within the timeout (the group is thawed again).
  void freeze(const std::string& dir);
  // Thaws every group frozen so far; returns one line per group that could not be thawed.
  std::vector<std::string> thaw();
  const std::vector<std::string>& frozen() const { return frozen_; }

 private:
  std::chrono::milliseconds timeout_;
  std::vector<std::string> frozen_;
};

// Whoever freezes a job holds an exclusive flock on its `lock_file` from before it freezes until
// after it thaws: freezes of one job take turns, and a frozen group whose lock is free was left
// by a freezer that died (kill -9). Waits for the lock, calling `while_waiting` every 10 ms (it
// may throw to give up). Throws lane::Error when the file cannot be opened.
lane::UniqueFd lock_freezes(const std::string& lock_file, const std::function<void()>& while_waiting);
// Thaws `freezer` when it is frozen and nobody holds `lock_file`; true when it did.
bool thaw_abandoned(const std::string& freezer, const std::string& lock_file);

// Whether the group `dir` (its own tasks) is frozen now: v1 freezer.state FROZEN, v2
// cgroup.events "frozen 1".
bool cgroup_frozen(const std::string& dir);

}  // namespace lane::submit::local
