#pragma once
// A volume provider: storage that is managed at the provider itself rather than through a
// backend (Azure NetApp Files, storage/anf). The factory picks it (`--backend <its name>`); the
// CLI sees only these interfaces and prints from StorageTraits. An opened volume gives its
// native snapshots (a SnapshotStore) and what the provider can tell and change about it.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"

namespace lane::storage {

// An option of a volume provider's own: the provider declares it, the CLI registers it.
struct ProviderOption {
  std::string flag;  // e.g. "--anf-config"
  std::string help;  // its help line
  std::string env;   // the environment variable read when the flag is absent ("": none)
};

// How the snapshots and restores of a storage differ, for the verbs that print them. A
// default-constructed StorageTraits is a backend's (local or Kubernetes): its store holds the
// snapshots of every claim, restores into a new claim (--to-pvc), reports each snapshot's files
// and sizes and keeps the newer snapshots on a revert.
struct StorageTraits {
  std::string name;       // the --backend value that selects it ("" for a backend's)
  std::string label;      // how messages name its volumes and snapshots (a volume provider's short name)
  std::string title;      // its full name
  bool one_volume = false;                  // its store is one volume's, opened by --pvc or --volume-id
  std::string new_volume_flag = "--to-pvc";  // the restore option that names the new volume
  std::string new_volume_place;             // where a restore puts the new volume, relative to the source
  std::string state_key;                    // snapshot metadata shown as STATE ("": files and sizes instead)
  bool revert_deletes_newer = false;        // a revert in place deletes the newer snapshots
  // A volume provider's own options and words (empty for a backend's):
  ProviderOption config_option;  // its credentials file (StorageSelection::config)
  std::string volume_id_help;    // what --volume-id takes
  std::string service_levels;    // the levels `volume set-service-level` accepts, for its help
};

// Which volume to open: a PVC (resolved through its bound PV) or the provider's own id.
struct ProviderVolumeTarget {
  std::string pvc;                      // --pvc
  std::string ns;                       // namespace of the PVC ("" = kubeconfig's)
  std::string volume_id;                // --volume-id (wins over --pvc)
  std::optional<std::filesystem::path> config_file;  // StorageTraits::config_option
  std::optional<int> timeout_s;         // --timeout for long-running operations
  std::filesystem::path home;           // $LANECTL_HOME: what the provider cannot keep at the provider
  std::string kube_context;             // lanectl --context: the kubeconfig context for --pvc
  std::string kubeconfig;               // lanectl --kubeconfig: the kubeconfig file for --pvc
};

// Where the opened volume is.
struct ProviderVolumeRef {
  std::string volume;  // the provider's volume name
  std::string pool;    // its capacity pool
  std::string pvc;     // the claim name ("" with --volume-id)
  std::string pv;      // the bound PV name
  std::string method;  // how it was found: "internalID" | "creationToken" | "volume-id"
};

// The outcome of a service-level change (a move to a pool of that level).
struct ServiceLevelChange {
  std::string from_pool, to_pool, from_level, to_level;
};

class ProviderVolume {
 public:
  virtual ~ProviderVolume() = default;

  virtual const ProviderVolumeRef& ref() const = 0;
  // The volume's native snapshots.
  virtual SnapshotStore& snapshots() = 0;
  // The volume's facts: id, name, location, creationToken, provisioningState, pool,
  // serviceLevel, poolQosType, quotaBytes, poolSizeBytes, throughputMibps,
  // poolTotalThroughputMibps.
  virtual nlohmann::json describe() = 0;
  // Moves the volume to a pool of `level` (or to `pool` when given); no data is copied.
  virtual ServiceLevelChange set_service_level(const std::string& level, const std::string& pool) = 0;
};

class VolumeProvider {
 public:
  virtual ~VolumeProvider() = default;

  virtual const StorageTraits& traits() const = 0;
  // The canonical spelling of a service level; UsageError otherwise (before any network).
  virtual std::string parse_service_level(const std::string& text) const = 0;
  // Throws UsageError when neither or both of target.pvc and target.volume_id are given.
  // Progress of long operations goes to `progress` (nullptr = nowhere); secrets never do.
  virtual std::unique_ptr<ProviderVolume> open(const ProviderVolumeTarget& target, std::ostream* progress) = 0;
};

}  // namespace lane::storage
