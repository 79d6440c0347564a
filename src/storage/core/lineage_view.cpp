#include "storage/core/lineage_view.h"

#include "common/error.h"

namespace lane::storage {

static LineageView build(SnapshotStore& store, Volumes& volumes, LineageRecord record,
                         const std::vector<LineageRecord>& all) {
  LineageView view;
  try {
    view.snapshot = store.describe(record.snapshot);
  } catch (const Error&) {
    // Deleted snapshot: the record is still shown, without the snapshot's details.
  }
  for (const auto& v : volumes.list())
    if (v.created_by == "restore:" + record.snapshot) view.restored_volumes.push_back(v.name);
  for (const auto& r : all)
    if (r.parent_snapshot == record.snapshot) view.derived_snapshots.push_back(r.snapshot);
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
  return build(store, volumes, std::move(*record), store.all_lineage());
}

std::vector<LineageView> lineage_of_job(SnapshotStore& store, Volumes& volumes, const std::string& job) {
  std::vector<LineageView> out;
  auto all = store.all_lineage();
  for (const auto& r : all)
    if ((r.job && r.job->name == job)) out.push_back(build(store, volumes, r, all));
  // Snapshots tagged with the job but without a job record (e.g. `snapshot create --job`).
  for (const auto& s : store.list(std::nullopt)) {
    if (s.job != job) continue;
    bool seen = false;
    for (const auto& v : out) seen = seen || v.record.snapshot == s.name;
    if (!seen)
      if (auto v = lineage_of_snapshot(store, volumes, s.name)) out.push_back(std::move(*v));
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
