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
#include "storage/core/snapshots.h"

namespace lane::cli {

// A snapshot and where it is: the configured backend's store (-p), or with --backend <provider>
// the provider volume behind --pvc (or --volume-id).
struct SnapshotTarget {
  std::string snapshot, pvc, project;
  submit::StorageSelection storage;
};

struct Reverted {
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
  std::string source_volume;  // the provider volume the snapshot is of ("" on a backend)
  std::string pool;           // its pool ("" on a backend)
  const storage::StorageTraits* traits = nullptr;
};

// Restores the snapshot into the new volume `new_volume`.
Restored restore_to_new_volume(const SnapshotTarget& target, const std::string& new_volume, CliContext& ctx);

// Deletes the snapshot; returns the traits of the storage it was in.
const storage::StorageTraits& delete_snapshot(const SnapshotTarget& target, CliContext& ctx);

}  // namespace lane::cli
