#pragma once
// The Storage role of the local backend: directory volumes under $LANECTL_HOME/volumes and
// one content-addressed snapshot store for every project.
#include <cstdint>
#include <memory>
#include <map>
#include <optional>
#include <string>

#include "submit/core/storage.h"
#include "submit/local/state/local_state.h"

namespace lane::storage::local {
class LocalSnapshotStore;
}

namespace lane::submit::local {

class ProjectSnapshots;

class LocalStorage : public Storage {
 public:
  // Also teaches the volumes who owns a restored claim (it needs the snapshots).
  explicit LocalStorage(LocalState& state);
  ~LocalStorage() override;

  storage::Volumes& volumes() override { return st_.volumes; }
  LocalVolumes& local_volumes() { return st_.volumes; }
  // Every project's snapshots (the job API, lineage, describe and verify read through it).
  storage::SnapshotStore& snapshots() override;
  // `project`'s snapshots and volumes only (project_snapshots.h); "" = snapshots().
  storage::SnapshotStore& snapshots_of(const std::string& project) override;
  // Claims share one namespace: every job's mounts, whatever `project`.
  std::vector<VolumeMount> volume_mounts(const std::string& project) override;
  // The check of the mounts and the removal of the row are one write transaction.
  void delete_volume(const std::string& name, const std::string& project) override;
  // The job whose job API asks for snapshots through this role (job_freeze.h).
  void set_snapshot_caller(int64_t job_id) { snapshot_caller_ = job_id; }

 private:
  LocalState& st_;
  std::unique_ptr<storage::local::LocalSnapshotStore> snapshots_;
  std::map<std::string, std::unique_ptr<ProjectSnapshots>> project_snapshots_;
  std::optional<int64_t> snapshot_caller_;
};

}  // namespace lane::submit::local
