#pragma once
// The one path that creates a snapshot: `lanectl snapshot create` on the configured backend's
// store or, with --backend <provider>, on the provider volume's; `lanectl volume snapshot
// create` is the latter.
#include <string>

#include "cli/context.h"
#include "cli/storage_flags.h"

namespace lane::cli {

struct SnapshotCreateOptions {
  std::string pvc, name, job, project, output;
  submit::StorageSelection storage;  // --backend and the provider's volume options
  bool quiet = false;                // no progress on stderr
};

// Names the snapshot (--name, else <pvc or provider volume>-<YYYYMMDD-HHMMSS>), creates it and
// prints what was created (-o json|yaml: the snapshot).
void create_snapshot(const SnapshotCreateOptions& o, CliContext& ctx);

}  // namespace lane::cli
