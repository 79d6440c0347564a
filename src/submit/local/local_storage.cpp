#include "submit/local/local_storage.h"

#include <fmt/format.h>

#include "common/names.h"
#include "storage/local/local_snapshot_store.h"
#include "submit/core/errors.h"
#include "submit/core/workload.h"
#include "submit/core/workload_json.h"
#include "submit/local/job_freeze.h"
#include "submit/local/project_snapshots.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {
namespace {

std::vector<VolumeMount> mounts_in(Database& db) {
  std::vector<VolumeMount> out;
  auto st = db.prepare("SELECT status, spec FROM jobs ORDER BY project, name");
  while (st.step())
    add_mounts(spec_from_json(nlohmann::json::parse(st.text(1))), job_status_from_string(st.text(0)), out);
  return out;
}

}  // namespace

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
  if (!snapshots_) {
    storage::local::LocalStoreOptions options;
    options.hold_writers = [this](const std::string& volume) {
      return hold_volume_writers(st_.db, volume, freeze_options_from_env(st_.paths, snapshot_caller_));
    };
    snapshots_ = std::make_unique<storage::local::LocalSnapshotStore>(st_.paths.home / "snapshots", st_.volumes,
                                                                      std::move(options));
  }
  return *snapshots_;
}

storage::SnapshotStore& LocalStorage::snapshots_of(const std::string& project) {
  if (project.empty()) return snapshots();
  {
    ReadTransaction tx(st_.db);
    if (!find_project(st_.db, project)) throw unknown_project(project);
  }
  auto& view = project_snapshots_[project];
  if (!view) view = std::make_unique<ProjectSnapshots>(snapshots(), st_.volumes, project);
  return *view;
}

std::vector<VolumeMount> LocalStorage::volume_mounts(const std::string& project) {
  (void)project;
  ReadTransaction tx(st_.db);
  return mounts_in(st_.db);
}

void LocalStorage::delete_volume(const std::string& name, const std::string& project) {
  require_dns1123_label(name, "volume name");
  {
    WriteTransaction tx(st_.db);
    if (!st_.volumes.find(name))
      throw Error(fmt::format("volume '{}' does not exist; see `lanectl volume list -A`", name));
    const std::string owner = st_.volumes.owner(name);
    if (!owner.empty() && owner != project)
      throw owned_by_another_project("volume", name, owner, project);
    require_unused(name, mounts_in(st_.db), fmt::format("delete volume '{}'", name), "");
    st_.volumes.remove_row(name);
    tx.commit();
  }
  st_.volumes.remove_data(name, progress_);
}

}  // namespace lane::submit::local
