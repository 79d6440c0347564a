#pragma once
// The one path of each operation on a snapshot that two verbs offer: `restore --in-place` and
// `volume revert` revert a volume, `restore --to-pvc|<provider's flag>` and `volume restore`
// restore into a new volume, `snapshot delete` and `volume snapshot delete` delete a snapshot.
// The verbs differ only in their words, which they pass in; the operation opens the selected
// storage, checks, acts, and hands back what the verb prints.
#include <functional>
#include <string>

#include "cli/context.h"
#include "cli/storage_flags.h"
#include "common/progress.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

// A snapshot and where it is: the configured backend's store (-p), or with --backend <provider>
// the provider volume behind --pvc (or --volume-id). `snapshot` is what the user typed (a name,
// a unique prefix of one or of an ID: storage/core/snapshot_lookup.h); with `job` set instead,
// the snapshot that job took. `quiet`: no progress on the error stream.
struct SnapshotTarget {
  std::string snapshot, pvc, project;
  submit::StorageSelection storage;
  std::string job;
  bool quiet = false;
};

// The help of a SNAP argument.
inline constexpr const char* kSnapshotRefHelp = "Snapshot: its name, a unique prefix of it or of its ID";

// The help of -p on a verb that reads or changes snapshots (through provider_text).
inline constexpr const char* kSnapshotProjectHelp =
    "Project whose snapshots and volumes to use (default: the configured one); with --backend {backend}: "
    "project of the PVC (namespace runai-<project>)";

// The --quiet flag of a verb that reports progress.
void add_quiet_flag(CLI::App* cmd, bool& quiet);

// Progress of one operation on `role` (a snapshot store, or the Storage role for a volume
// delete: whatever reports to report_progress_to), on the error stream (common/progress.h: a line
// redrawn on a terminal, one summary line elsewhere, nothing when quiet), for as long as it lives.
template <class Role>
class OperationProgress {
 public:
  OperationProgress(Role& role, const std::string& label, bool quiet, CliContext& ctx)
      : role_(role), reporter_(ctx.err, ProgressReporter::mode_for(ctx.err, quiet), label) {
    role_.report_progress_to(&reporter_);
  }
  ~OperationProgress() { role_.report_progress_to(nullptr); }
  OperationProgress(const OperationProgress&) = delete;
  OperationProgress& operator=(const OperationProgress&) = delete;
  void finish() { reporter_.finish(); }  // after the operation succeeded

 private:
  Role& role_;
  ProgressReporter reporter_;
};
using StoreProgress = OperationProgress<storage::SnapshotStore>;

struct Reverted {
  std::string snapshot;         // the full name of the snapshot reverted to
  std::string volume;           // --pvc, else the provider volume's name
  std::string provider_volume;  // the provider volume's name ("" on a backend)
  storage::RevertPlan plan;
  const storage::StorageTraits* traits = nullptr;
};

// What a revert says when it is not confirmed.
struct RevertTexts {
  bool warn_when_confirmed = false;  // print the warning with --yes too
  std::function<std::string(const Reverted&)> warning;  // on the error stream, before the revert
  std::string refusal;                                  // the usage error without --yes
};

// Reverts the volume in place. Refuses (exit 2, nothing changed) without `yes`, and on a
// backend while an active job mounts the volume (its writes would be lost).
Reverted revert_volume(const SnapshotTarget& target, bool yes, const RevertTexts& texts, CliContext& ctx);

struct Restored {
  std::string snapshot;       // the full name of the snapshot restored
  std::string source_volume;  // the provider volume the snapshot is of ("" on a backend)
  std::string pool;           // its pool ("" on a backend)
  const storage::StorageTraits* traits = nullptr;
};

// Restores the snapshot into the new volume `new_volume`.
Restored restore_to_new_volume(const SnapshotTarget& target, const std::string& new_volume, CliContext& ctx);

struct Deleted {
  std::string snapshot;  // its full name
  const storage::StorageTraits* traits = nullptr;
};

// Deletes the snapshot.
Deleted delete_snapshot(const SnapshotTarget& target, CliContext& ctx);

}  // namespace lane::cli
