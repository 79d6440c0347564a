#pragma once
// The one path that creates a snapshot: `lanectl snapshot create` on the configured backend's
// store or, with --backend anf, on the volume provider's; `lanectl volume snapshot create` is
// the latter.
#include <string>

#include "cli/anf_flags.h"
#include "cli/context.h"

namespace lane::cli {

struct SnapshotCreateOptions {
  std::string pvc, name, job, project, output;
  AnfFlags anf;  // --backend and the ANF volume options
};

// Names the snapshot (--name, else <pvc or ANF volume>-<YYYYMMDD-HHMMSS>), creates it and prints
// what was created (-o json|yaml: the snapshot).
void create_snapshot(const SnapshotCreateOptions& o, CliContext& ctx);

}  // namespace lane::cli
