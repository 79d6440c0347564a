#pragma once
// Point-in-time snapshots of live volumes (docs/reliability.md, "Live snapshots"). While a local
// snapshot reads a volume, every active job that mounts it read-write is frozen through its
// cgroup freezer (cgroup_freezer.h), from the scan to the last file read, and thawed before the
// snapshot is published: its processes, `lanectl exec` ones included, write nothing meanwhile.
//   * The job asking through its job API (the end-of-training snapshot) is frozen too: the
//     snapshot runs in its root supervisor, outside the job's cgroup, and the caller only waits
//     for the answer, so nothing deadlocks. lanectl never freezes a group it is itself in.
//   * A writer that cannot be frozen (not root, no freezer on the host, a group without one)
//     refuses the snapshot, naming why and the fix, unless LANECTL_SNAPSHOT_NO_FREEZE=1 (the
//     snapshot then records pointInTime=false) or it is the calling job itself (its call is its
//     own quiet point; recorded the same way).
//   * SIGINT, SIGTERM, SIGHUP and SIGQUIT are held while jobs are frozen: the snapshot is
//     abandoned at the next file, the jobs thawed, then the signal acts.
//   * Freezes of one job take turns (a flock on its freeze.lock, held until it is thawed); the
//     job's supervisor thaws a group left frozen by a snapshot that was killed (kill -9).
//   * A writer that started during the capture (not frozen) fails the snapshot: take it again.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "storage/local/local_snapshot_store.h"
#include "submit/local/state/sqlite_db.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {

// The lock a job's freezer holds (cgroup_freezer.h lock_freezes): <job dir>/freeze.lock.
std::filesystem::path freeze_lock_file(const Paths& paths, int64_t job_id);

struct FreezeOptions {
  Paths paths;                        // where the jobs' freeze locks are
  std::optional<int64_t> caller_job;  // the job whose job API asks for the snapshot
  bool no_freeze = false;             // LANECTL_SNAPSHOT_NO_FREEZE=1: unfreezable writers allowed
  std::string cgroup_root = "/sys/fs/cgroup";
};

// The options from the environment (LANECTL_SNAPSHOT_NO_FREEZE) and the calling job.
FreezeOptions freeze_options_from_env(const Paths& paths, std::optional<int64_t> caller_job);

// Freezes the writers of `volume` found in the state `db` now; throws lane::Error (nothing left
// frozen) when one cannot be frozen and the options do not allow it.
std::unique_ptr<storage::local::CaptureHold> hold_volume_writers(Database& db, const std::string& volume,
                                                                 const FreezeOptions& options);

}  // namespace lane::submit::local
