#pragma once
// SnapshotStore over CSI VolumeSnapshots in one namespace. create() waits (list + watch) until
// the snapshot is readyToUse, reporting progress, and turns status.error into an Error after
// deleting the failed object (all-or-nothing). restore makes a PVC whose dataSource is the
// snapshot, sized at least status.restoreSize. Lineage records are ConfigMaps
// lineage-<snapshot> next to the snapshots. Works in a pod with its service account.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"
#include "kube/kube_client.h"

namespace lane::storage::kube {

struct CsiSnapshotOptions {
  std::string ns;                       // the project's namespace
  std::string snapshot_class;           // "" = the driver's default VolumeSnapshotClass
  std::string restore_access_mode = "ReadWriteMany";
  std::chrono::seconds ready_timeout{600};
  // Progress lines while waiting ("waiting for snapshot x: readyToUse=false (3s)"); may be empty.
  std::function<void(const std::string&)> progress;
};

class CsiSnapshotStore : public SnapshotStore {
 public:
  CsiSnapshotStore(std::shared_ptr<lane::kube::KubeClient> client, CsiSnapshotOptions options);

  SnapshotInfo create(const std::string& volume, const std::string& name, const std::string& job,
                      const std::map<std::string, std::string>& metadata) override;
  std::vector<SnapshotInfo> list(const std::optional<std::string>& volume) override;
  SnapshotInfo describe(const std::string& name) override;
  void remove(const std::string& name) override;
  VerifyReport verify(const std::string& name) override;
  void restore_to_new_volume(const std::string& name, const std::string& new_volume) override;
  RevertPlan plan_revert(const std::string& name, const std::string& volume) override;
  RevertPlan revert_in_place(const std::string& name, const std::string& volume) override;
  void record_lineage(const LineageRecord& record) override;
  std::optional<LineageRecord> lineage(const std::string& snapshot) override;
  std::vector<LineageRecord> all_lineage() override;

 private:
  std::shared_ptr<lane::kube::KubeClient> client_;
  CsiSnapshotOptions options_;
};

// PVCs of one namespace as Volumes.
class PvcVolumes : public Volumes {
 public:
  // `project`: the project the namespace is, stamped on the volumes read (VolumeInfo::project).
  PvcVolumes(std::shared_ptr<lane::kube::KubeClient> client, std::string ns, std::string access_mode,
             std::string project = {});
  std::optional<VolumeInfo> find(const std::string& name) override;
  std::vector<VolumeInfo> list() override;
  VolumeInfo create(const std::string& name, const std::string& size, const std::string& storage_class,
                    const VolumeOrigin& origin) override;
  void remove(const std::string& name) override;

 private:
  std::shared_ptr<lane::kube::KubeClient> client_;
  std::string ns_;
  std::string access_mode_;
  std::string project_;
};

// Converts a VolumeSnapshot object (exposed for tests).
SnapshotInfo snapshot_info_from_object(const nlohmann::json& vs);

}  // namespace lane::storage::kube
