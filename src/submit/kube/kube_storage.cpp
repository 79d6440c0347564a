#include "submit/kube/kube_storage.h"

#include <ostream>

#include <fmt/format.h>

#include "storage/kube/csi_snapshot_store.h"
#include "submit/kube/kube_jobs.h"

namespace lane::submit::kube {

std::string KubeStorage::storage_namespace() {
  if (!ctx_.default_project.empty()) return ctx_.ns_of(ctx_.default_project);
  return ctx_.client->default_namespace();
}

storage::Volumes& KubeStorage::volumes() {
  if (!volumes_) {
    volumes_ = std::make_unique<storage::kube::PvcVolumes>(ctx_.client, storage_namespace(), ctx_.settings.pvc_access_mode,
                                                           ctx_.default_project);
  }
  return *volumes_;
}

std::unique_ptr<storage::SnapshotStore> KubeStorage::make_snapshot_store(const std::string& ns) {
  storage::kube::CsiSnapshotOptions o;
  o.ns = ns;
  o.snapshot_class = ctx_.settings.snapshot_class;
  o.restore_access_mode = ctx_.settings.pvc_access_mode;
  if (wait_lines_) o.progress = [out = wait_lines_](const std::string& line) { *out << line << "\n"; };
  return std::make_unique<storage::kube::CsiSnapshotStore>(ctx_.client, o);
}

storage::SnapshotStore& KubeStorage::snapshots() {
  if (!snapshots_) snapshots_ = make_snapshot_store(storage_namespace());
  return *snapshots_;
}

storage::Volumes& KubeStorage::volumes_of(const std::string& project) {
  if (project.empty()) return volumes();
  const std::string ns = ctx_.ns_of(project);
  auto& v = project_volumes_[ns];
  if (!v) v = std::make_unique<storage::kube::PvcVolumes>(ctx_.client, ns, ctx_.settings.pvc_access_mode, project);
  return *v;
}

storage::SnapshotStore& KubeStorage::snapshots_of(const std::string& project) {
  if (project.empty()) return snapshots();
  const std::string ns = ctx_.ns_of(project);
  auto& store = project_snapshots_[ns];
  if (!store) store = make_snapshot_store(ns);
  return *store;
}

std::vector<VolumeMount> KubeStorage::volume_mounts(const std::string& project) {
  KubeJobs jobs(ctx_);
  std::vector<VolumeMount> out;
  for (const auto& j : jobs.list_jobs(project.empty() ? std::nullopt : std::optional<std::string>(project)))
    add_mounts(j.spec, j.status, out);
  return out;
}

void KubeStorage::delete_volume(const std::string& name, const std::string& project) {
  auto& volumes = volumes_of(project);
  if (!volumes.find(name))
    throw Error(fmt::format("volume '{}' does not exist in namespace {}; see `lanectl volume list -p {}`", name,
                            ctx_.ns_of(project), project));
  require_unused(name, volume_mounts(project), fmt::format("delete volume '{}'", name), "");
  volumes.remove(name);
}

}  // namespace lane::submit::kube
