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

namespace lane::storage::anf {

struct AnfTarget {
  std::string pvc;                      // --pvc
  std::string ns;                       // namespace of the PVC ("" = kubeconfig's)
  std::string volume_id;                // --volume-id (wins over --pvc)
  std::optional<std::filesystem::path> config_file;  // --anf-config
  std::optional<int> timeout_s;         // --timeout for long-running operations
  std::filesystem::path lineage_dir;    // $LANECTL_HOME/anf-lineage
};

struct OpenedTarget {
  std::unique_ptr<AnfSnapshotStore> store;  // owns the ARM client
  ResolvedVolume volume;
  ArmClient& arm() { return store->arm(); }
};

// Throws UsageError when neither/both of --pvc and --volume-id are given.
OpenedTarget open_anf_target(const AnfTarget& target, std::ostream* progress);

}  // namespace lane::storage::anf
