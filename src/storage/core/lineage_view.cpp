#include "storage/core/lineage_view.h"

#include <iostream>
#include <map>

#include "common/error.h"

namespace lane::storage {

LineageLinks::LineageLinks(const std::vector<LineageRecord>& records, const std::vector<VolumeInfo>& volumes) {
  std::map<std::string, const VolumeInfo*> volume_by_name;
  for (const auto& v : volumes) {
    volume_by_name[v.name] = &v;
    if (v.origin.kind() == VolumeOrigin::Kind::kRestore) restores_.push_back({v.origin.snapshot(), v.name});
  }
  for (const auto& r : records) {
    if (r.parent_snapshot.empty()) continue;
    auto it = volume_by_name.find(r.volume);
    bool through = it != volume_by_name.end() && it->second->origin.restored_from(r.parent_snapshot);
    derivations_.push_back({r.parent_snapshot, r.snapshot, through});
  }
}

std::vector<std::string> LineageLinks::restored_volumes(const std::string& snapshot) const {
  std::vector<std::string> out;
  for (const auto& r : restores_)
    if (r.snapshot == snapshot) out.push_back(r.volume);
  return out;
}

std::vector<std::string> LineageLinks::derived_snapshots(const std::string& snapshot) const {
  std::vector<std::string> out;
  for (const auto& d : derivations_)
    if (d.parent == snapshot) out.push_back(d.child);
  return out;
}

static LineageView build(SnapshotStore& store, const LineageLinks& links, LineageRecord record) {
  LineageView view;
  try {
    view.snapshot = store.describe(record.snapshot);
  } catch (const Error&) {
    // Deleted snapshot: the record is still shown, without the snapshot's details.
  }
  view.restored_volumes = links.restored_volumes(record.snapshot);
  view.derived_snapshots = links.derived_snapshots(record.snapshot);
  view.record = std::move(record);
  return view;
}

std::optional<LineageView> lineage_of_snapshot(SnapshotStore& store, Volumes& volumes,
                                               const std::string& snapshot) {
  require_snapshot_name(snapshot);
  auto record = store.lineage(snapshot);
  if (!record) {
    // A snapshot without a record (taken by another tool): show what the store knows.
    try {
      SnapshotInfo info = store.describe(snapshot);
      record = LineageRecord{};
      record->snapshot = info.name;
      record->volume = info.volume;
      record->dataset_digest = info.content_digest;
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return build(store, LineageLinks(store.all_lineage(), volumes.list()), std::move(*record));
}

std::vector<LineageView> lineage_of_job(SnapshotStore& store, Volumes& volumes, const std::string& job) {
  std::vector<LineageView> out;
  const auto all = store.all_lineage();
  const LineageLinks links(all, volumes.list());
  for (const auto& r : all)
    if (r.job && r.job->name == job) out.push_back(build(store, links, r));
  // Snapshots tagged with the job but without a job record (e.g. `snapshot create --job`).
  for (const auto& s : store.list(std::nullopt)) {
    if (s.job != job) continue;
    bool seen = false;
    for (const auto& v : out) seen = seen || v.record.snapshot == s.name;
    if (seen) continue;
    try {
      if (auto v = lineage_of_snapshot(store, volumes, s.name)) out.push_back(std::move(*v));
    } catch (const Error& e) {
      // A damaged record (its file named in e) must not hide the job's other snapshots.
      std::cerr << "warning: " << e.what() << "; skipped" << std::endl;
    }
  }
  return out;
}

nlohmann::json to_json(const LineageView& view) {
  nlohmann::json j = to_json(view.record);
  j["snapshotExists"] = !view.snapshot.name.empty();
  if (!view.snapshot.name.empty()) {
    j["created"] = format_utc(view.snapshot.created_unix_ms);
    j["contentDigest"] = view.snapshot.content_digest;
    j["namespace"] = view.snapshot.ns;
  }
  j["restoredVolumes"] = view.restored_volumes;
  j["derivedSnapshots"] = view.derived_snapshots;
  return j;
}

}  // namespace lane::storage
