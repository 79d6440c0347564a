#pragma once
// The snapshots of `lanectl snapshot list` and `lanectl volume snapshot list`: -o json|yaml
// {"items": [...]}, else a table: ID (the short ID a command takes for the snapshot), NAME, VOLUME,
// JOB, CREATED, FILES, SIZE (wide: ADDED, DIGEST), or ID, NAME, VOLUME, CREATED, STATE where the
// storage reports a state instead of files and sizes (StorageTraits::state_key). `projects`, when
// given (snapshot list -A), is each snapshot's project: a PROJECT column after NAME, and "project"
// in -o json|yaml.
#include <ostream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "storage/core/snapshots.h"
#include "storage/core/volume_provider.h"

namespace lane::cli {

void print_snapshots(std::ostream& out, const std::vector<storage::SnapshotInfo>& snaps,
                     const storage::StorageTraits& traits, OutputFormat format,
                     const std::vector<std::string>& projects = {});

}  // namespace lane::cli
