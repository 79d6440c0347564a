#pragma once
// What every `--backend anf` command starts from: options (config file / environment), the ANF
// volume (from --volume-id, or the PVC through its bound PV via the kube client), and a store
// bound to that volume. Shared by `lanectl volume` and the snapshot/restore verbs.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "storage/anf/anf_snapshot_store.h"
#include "storage/anf/volume_resolver.h"
#include "storage/core/volume_provider.h"

namespace lane::storage::anf {

// --pvc, -n, --volume-id, --anf-config, --timeout and the lineage directory.
using AnfTarget = ProviderVolumeTarget;

struct OpenedTarget {
  std::unique_ptr<AnfSnapshotStore> store;  // owns the ARM client
  ResolvedVolume volume;
  ArmClient& arm() { return store->arm(); }
};

// Throws UsageError when neither/both of --pvc and --volume-id are given.
OpenedTarget open_anf_target(const AnfTarget& target, std::ostream* progress);

}  // namespace lane::storage::anf
