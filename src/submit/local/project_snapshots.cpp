#include "submit/local/project_snapshots.h"

#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/workload.h"
#include "submit/local/state/local_volumes.h"

namespace lane::submit::local {

UsageError owned_by_another_project(const std::string& what, const std::string& name, const std::string& owner,
                                    const std::string& project) {
  return UsageError(fmt::format("{} '{}' belongs to project '{}', not '{}'; add -p {}", what, name, owner, project,
                                owner));
}

ProjectSnapshots::ProjectSnapshots(storage::SnapshotStore& all, LocalVolumes& volumes, std::string project)
    : all_(all), volumes_(volumes), project_(std::move(project)) {}

storage::SnapshotStore& ProjectSnapshots::all() {
  all_.report_progress_to(progress_);
  return all_;
}

bool ProjectSnapshots::ours(const storage::SnapshotInfo& info) const {
  const std::string owner = namespace_project(info.ns);
  return owner.empty() || owner == project_;
}

storage::SnapshotInfo ProjectSnapshots::own_snapshot(const std::string& name) {
  storage::SnapshotInfo info = all_.describe(name);
  if (!ours(info)) {
    const std::string owner = namespace_project(info.ns);
    throw owned_by_another_project("snapshot", name, owner, project_);
  }
  return info;
}

void ProjectSnapshots::require_own_volume(const std::string& volume) {
  if (!volumes_.find(volume)) return;  // the store's own error names it
  const std::string owner = volumes_.owner(volume);
  if (!owner.empty() && owner != project_)
    throw owned_by_another_project("volume", volume, owner, project_);
}

storage::SnapshotInfo ProjectSnapshots::create(const std::string& volume, const std::string& name,
                                               const std::string& job,
                                               const std::map<std::string, std::string>& metadata) {
  require_own_volume(volume);
  return all().create(volume, name, job, metadata);
}

std::vector<storage::SnapshotInfo> ProjectSnapshots::list(const std::optional<std::string>& volume) {
  std::vector<storage::SnapshotInfo> out;
  for (auto& s : all_.list(volume))
    if (ours(s)) out.push_back(std::move(s));
  return out;
}

storage::SnapshotInfo ProjectSnapshots::describe(const std::string& name) { return own_snapshot(name); }

void ProjectSnapshots::remove(const std::string& name) {
  own_snapshot(name);
  all().remove(name);
}

storage::VerifyReport ProjectSnapshots::verify(const std::string& name) {
  own_snapshot(name);
  return all().verify(name);
}

void ProjectSnapshots::restore_to_new_volume(const std::string& name, const std::string& new_volume) {
  own_snapshot(name);
  all().restore_to_new_volume(name, new_volume);
}

storage::RevertPlan ProjectSnapshots::plan_revert(const std::string& name, const std::string& volume) {
  own_snapshot(name);
  require_own_volume(volume);
  return all().plan_revert(name, volume);
}

storage::RevertPlan ProjectSnapshots::revert_in_place(const std::string& name, const std::string& volume) {
  own_snapshot(name);
  require_own_volume(volume);
  return all().revert_in_place(name, volume);
}

storage::SnapshotInfo ProjectSnapshots::create_with_lineage(const std::string& volume, const std::string& name,
                                                            const std::string& job,
                                                            const std::map<std::string, std::string>& metadata,
                                                            const storage::LineageRecord& record) {
  require_own_volume(volume);
  return all().create_with_lineage(volume, name, job, metadata, record);
}

void ProjectSnapshots::record_lineage(const storage::LineageRecord& record) {
  own_snapshot(record.snapshot);
  all_.record_lineage(record);
}

std::optional<storage::LineageRecord> ProjectSnapshots::lineage(const std::string& snapshot) {
  auto record = all_.lineage(snapshot);
  if (record && !ours(all_.describe(snapshot))) return std::nullopt;
  return record;
}

std::vector<storage::LineageRecord> ProjectSnapshots::all_lineage() {
  std::set<std::string> others;  // records of deleted snapshots stay: restored volumes' parents
  for (const auto& s : all_.list(std::nullopt))
    if (!ours(s)) others.insert(s.name);
  std::vector<storage::LineageRecord> out;
  for (auto& r : all_.all_lineage())
    if (!others.count(r.snapshot)) out.push_back(std::move(r));
  return out;
}

}  // namespace lane::submit::local
