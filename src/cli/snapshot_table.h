#pragma once
// The snapshots of `lanectl snapshot list` and `lanectl volume snapshot list`: -o json|yaml
// {"items": [...]}, else a table: ID (the short ID a command takes for the snapshot), NAME, VOLUME,
// JOB, CREATED, FILES, SIZE (wide: ADDED, DIGEST), or ID, NAME, VOLUME, CREATED, STATE where the
// storage reports a state instead of files and sizes (StorageTraits::state_key).
#include <ostream>
#include <vector>

#include "cli/context.h"
#include "storage/core/snapshots.h"
#include "storage/core/volume_provider.h"

namespace lane::cli {

void print_snapshots(std::ostream& out, const std::vector<storage::SnapshotInfo>& snaps,
                     const storage::StorageTraits& traits, OutputFormat format);

}  // namespace lane::cli
