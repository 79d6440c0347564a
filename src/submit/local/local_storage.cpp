#include "submit/local/local_storage.h"

#include "storage/local/local_snapshot_store.h"
#include "submit/core/workload.h"

namespace lane::submit::local {

LocalStorage::LocalStorage(LocalState& state) : st_(state) {
  // A restored claim belongs to the project of the claim its snapshot was taken of (as a
  // Kubernetes restore creates the PVC in the snapshot's namespace); "runai-<project>" of the
  // snapshot when that claim is gone.
  st_.volumes.set_owner_resolver([this](const storage::VolumeOrigin& origin) -> std::string {
    if (origin.kind() != storage::VolumeOrigin::Kind::kRestore) return "";
    storage::SnapshotInfo info = snapshots().describe(origin.snapshot());
    if (st_.volumes.find(info.volume))
      if (std::string p = st_.volumes.owner(info.volume); !p.empty()) return p;
    return namespace_project(info.ns);
  });
}

LocalStorage::~LocalStorage() = default;

storage::SnapshotStore& LocalStorage::snapshots() {
  if (!snapshots_)
    snapshots_ = std::make_unique<storage::local::LocalSnapshotStore>(st_.paths.home / "snapshots", st_.volumes);
  return *snapshots_;
}

}  // namespace lane::submit::local
