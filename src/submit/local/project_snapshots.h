#pragma once
// One project's view of the local backend's snapshot store, as a Kubernetes namespace is a
// project's view of its VolumeSnapshots: it lists and finds only the project's snapshots (those
// whose namespace is runai-<project>, and those of no known project, taken by an earlier
// version), and snapshots, restores and reverts only the project's volumes. Another project's
// snapshot or volume is refused (exit 2) with the -p that names its owner.
#include <string>

#include "common/error.h"
#include "storage/core/snapshots.h"

namespace lane::submit::local {

class LocalVolumes;

// The refusal of another project's object: "volume 'v' belongs to project 'a', not 'b'; add -p a"
// (`what`: volume, snapshot).
UsageError owned_by_another_project(const std::string& what, const std::string& name, const std::string& owner,
                                    const std::string& project);

class ProjectSnapshots : public storage::SnapshotStore {
 public:
  ProjectSnapshots(storage::SnapshotStore& all, LocalVolumes& volumes, std::string project);

  storage::SnapshotInfo create(const std::string& volume, const std::string& name, const std::string& job,
                               const std::map<std::string, std::string>& metadata) override;
  std::vector<storage::SnapshotInfo> list(const std::optional<std::string>& volume) override;
  storage::SnapshotInfo describe(const std::string& name) override;
  void remove(const std::string& name) override;
  storage::VerifyReport verify(const std::string& name) override;
  void restore_to_new_volume(const std::string& name, const std::string& new_volume) override;
  storage::RevertPlan plan_revert(const std::string& name, const std::string& volume) override;
  storage::RevertPlan revert_in_place(const std::string& name, const std::string& volume) override;
  storage::SnapshotInfo create_with_lineage(const std::string& volume, const std::string& name, const std::string& job,
                                            const std::map<std::string, std::string>& metadata,
                                            const storage::LineageRecord& record) override;
  void record_lineage(const storage::LineageRecord& record) override;
  std::optional<storage::LineageRecord> lineage(const std::string& snapshot) override;
  std::vector<storage::LineageRecord> all_lineage() override;

 private:
  bool ours(const storage::SnapshotInfo& info) const;
  // The snapshot, or UsageError when it is another project's.
  storage::SnapshotInfo own_snapshot(const std::string& name);
  // UsageError when the volume is another project's.
  void require_own_volume(const std::string& volume);
  // The whole store, reporting to this view's progress sink.
  storage::SnapshotStore& all();

  storage::SnapshotStore& all_;
  LocalVolumes& volumes_;
  std::string project_;
};

}  // namespace lane::submit::local
