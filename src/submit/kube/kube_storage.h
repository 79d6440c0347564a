#pragma once
// The Storage role on Kubernetes: volumes are PVCs and snapshots are CSI VolumeSnapshots
// (storage/kube), in the default project's namespace or, for snapshots_of, the project's.
#include <iosfwd>
#include <map>
#include <memory>
#include <string>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"
#include "submit/core/storage.h"
#include "submit/kube/kube_context.h"

namespace lane::submit::kube {

class KubeStorage : public Storage {
 public:
  // `progress`: where the snapshot stores report waiting for a snapshot; nullptr = nowhere.
  KubeStorage(const KubeContext& context, std::ostream* progress) : ctx_(context), wait_lines_(progress) {}

  storage::Volumes& volumes() override;
  storage::SnapshotStore& snapshots() override;
  storage::SnapshotStore& snapshots_of(const std::string& project) override;
  storage::Volumes& volumes_of(const std::string& project) override;
  // The jobs of `project` ("" = of every project) and their --pvc claims.
  std::vector<VolumeMount> volume_mounts(const std::string& project) override;
  void delete_volume(const std::string& name, const std::string& project) override;

 private:
  std::string storage_namespace();
  std::unique_ptr<storage::SnapshotStore> make_snapshot_store(const std::string& ns);

  const KubeContext& ctx_;
  std::ostream* wait_lines_;  // not Storage::progress_ (a volume delete's progress, unused here)
  std::unique_ptr<storage::Volumes> volumes_;
  std::unique_ptr<storage::SnapshotStore> snapshots_;
  std::map<std::string, std::unique_ptr<storage::SnapshotStore>> project_snapshots_;  // by namespace
  std::map<std::string, std::unique_ptr<storage::Volumes>> project_volumes_;  // by namespace
};

}  // namespace lane::submit::kube
