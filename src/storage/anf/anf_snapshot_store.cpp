#include "storage/anf/anf_snapshot_store.h"

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::storage::anf {
namespace fs = std::filesystem;

int64_t parse_arm_time(const std::string& text) {
  std::tm tm{};
  int y, mo, d, h, mi;
  double s;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6) return 0;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + static_cast<int64_t>(s * 1000);
}

AnfSnapshotStore::AnfSnapshotStore(std::unique_ptr<ArmClient> arm, VolumeRef volume, std::string label)
    : arm_(std::move(arm)), volume_(std::move(volume)), label_(std::move(label)) {
  if (label_.empty()) label_ = volume_.volume;
}

void AnfSnapshotStore::require_same_volume(const std::string& volume) const {
  if (volume.empty() || volume == label_ || volume == volume_.volume || volume == volume_.id()) return;
  throw UsageError("this ANF snapshot store is bound to volume '" + label_ + "' (" + volume_.id() +
                   "), not '" + volume + "'");
}

SnapshotInfo AnfSnapshotStore::info_of(const Json& s) const {
  SnapshotInfo info;
  info.name = leaf_name(s.value("id", s.value("name", "")));
  info.volume = label_;
  const Json props = s.value("properties", Json::object());
  info.created_unix_ms = parse_arm_time(props.value("created", ""));
  info.metadata["anf.id"] = s.value("id", "");
  info.metadata["anf.provisioningState"] = props.value("provisioningState", "");
  if (props.contains("snapshotId") && props["snapshotId"].is_string())
    info.metadata["anf.snapshotId"] = props["snapshotId"].get<std::string>();
  return info;
}

std::vector<Json> AnfSnapshotStore::snapshots_oldest_first() {
  auto all = arm_->list(volume_.id() + "/snapshots");
  std::stable_sort(all.begin(), all.end(), [](const Json& a, const Json& b) {
    return parse_arm_time(a["properties"].value("created", "")) < parse_arm_time(b["properties"].value("created", ""));
  });
  return all;
}

SnapshotInfo AnfSnapshotStore::create(const std::string& volume, const std::string& name,
                                      const std::string& job,
                                      const std::map<std::string, std::string>& metadata) {
  require_same_volume(volume);
  require_snapshot_name(name);
  const std::string id = volume_.snapshot_id(name);
  // ANF documents no idempotent re-PUT for snapshots: look first and refuse a duplicate.
  if (arm_->try_get(id))
    throw UsageError("snapshot '" + name + "' already exists on ANF volume '" + volume_.volume +
                     "'; choose another name or delete it first");
  Json vol = arm_->get(volume_.id());
  Json s = arm_->put(id, Json{{"location", vol.value("location", "")}}, "snapshot " + name);
  SnapshotInfo info = info_of(s);
  info.job = job;
  for (const auto& [k, v] : metadata) info.metadata[k] = v;
  return info;
}

std::vector<SnapshotInfo> AnfSnapshotStore::list(const std::optional<std::string>& volume) {
  if (volume) require_same_volume(*volume);
  std::vector<SnapshotInfo> out;
  for (const Json& s : snapshots_oldest_first()) out.push_back(info_of(s));
  return out;
}

SnapshotInfo AnfSnapshotStore::describe(const std::string& name) {
  require_snapshot_name(name);
  auto s = arm_->try_get(volume_.snapshot_id(name));
  if (!s) throw Error("snapshot '" + name + "' not found on ANF volume '" + volume_.volume + "' (" + label_ + ")");
  return info_of(*s);
}

void AnfSnapshotStore::remove(const std::string& name) {
  require_snapshot_name(name);
  if (!arm_->try_get(volume_.snapshot_id(name)))
    throw Error("snapshot '" + name + "' not found on ANF volume '" + volume_.volume + "'");
  arm_->remove(volume_.snapshot_id(name), "delete snapshot " + name);
}

// ANF keeps snapshot contents itself; "verify" reports what the service says about it.
VerifyReport AnfSnapshotStore::verify(const std::string& name) {
  SnapshotInfo info = describe(name);
  VerifyReport report;
  report.snapshot = name;
  report.objects_checked = 1;
  const std::string state = info.metadata["anf.provisioningState"];
  if (state != "Succeeded") report.damaged.push_back(name + ": ANF provisioningState is '" + state + "'");
  return report;
}

void AnfSnapshotStore::restore_to_new_volume(const std::string& name, const std::string& new_volume) {
  require_snapshot_name(name);
  VolumeRef target = volume_;
  target.volume = new_volume;
  parse_volume_id(target.id(), "new volume name");  // rejects '/', '?' ...
  if (new_volume.empty() || !std::isalpha(static_cast<unsigned char>(new_volume[0])) || new_volume.size() > 64)
    throw UsageError("--to-volume '" + new_volume + "': an ANF volume name is 1-64 characters of "
                     "[a-zA-Z0-9-_] starting with a letter");
  describe(name);  // a clear "not found" before anything is created
  if (arm_->try_get(target.id()))
    throw UsageError("ANF volume '" + new_volume + "' already exists in pool '" + volume_.pool + "'; choose another name");
  const Json src = arm_->get(volume_.id());
  const Json sp = src.value("properties", Json::object());
  Json props = {{"creationToken", new_volume},
                {"snapshotId", volume_.snapshot_id(name)},
                {"subnetId", sp.value("subnetId", "")},
                {"usageThreshold", sp.value("usageThreshold", int64_t{107374182400})}};
  for (const char* copy : {"serviceLevel", "protocolTypes", "exportPolicy", "networkFeatures"})
    if (sp.contains(copy)) props[copy] = sp[copy];
  Json body = {{"location", src.value("location", "")}, {"properties", props}};
  arm_->put(target.id(), body, "create volume " + new_volume + " from snapshot " + name);
}

RevertPlan AnfSnapshotStore::plan_revert(const std::string& name, const std::string& volume) {
  require_same_volume(volume);
  require_snapshot_name(name);
  auto all = snapshots_oldest_first();
  auto it = std::find_if(all.begin(), all.end(), [&](const Json& s) { return leaf_name(s.value("id", "")) == name; });
  if (it == all.end())
    throw Error("snapshot '" + name + "' is not a snapshot of ANF volume '" + volume_.volume + "' (" + label_ + ")");
  RevertPlan plan{name, label_, {}};
  for (++it; it != all.end(); ++it) plan.newer_snapshots.push_back(leaf_name(it->value("id", "")));
  return plan;
}

RevertPlan AnfSnapshotStore::revert_in_place(const std::string& name, const std::string& volume) {
  RevertPlan plan = plan_revert(name, volume);
  arm_->post_action(volume_.id(), "revert", Json{{"snapshotId", volume_.snapshot_id(name)}},
                    "revert " + volume_.volume + " to " + name);
  return plan;
}

void AnfSnapshotStore::record_lineage(const LineageRecord& record) {
  const fs::path dir = arm_->options().lineage_dir;
  if (dir.empty()) throw Error("ANF lineage records need a state directory (LANECTL_HOME)");
  require_snapshot_name(record.snapshot, "lineage snapshot");
  fs::create_directories(dir);
  write_file_atomic(dir / (record.snapshot + ".json"), to_json(record).dump(2) + "\n");
}

std::optional<LineageRecord> AnfSnapshotStore::lineage(const std::string& snapshot) {
  require_snapshot_name(snapshot);
  const fs::path file = arm_->options().lineage_dir / (snapshot + ".json");
  if (arm_->options().lineage_dir.empty() || !fs::exists(file)) return std::nullopt;
  return lineage_record_from_json(Json::parse(read_file(file)));
}

std::vector<LineageRecord> AnfSnapshotStore::all_lineage() {
  std::vector<LineageRecord> out;
  const fs::path dir = arm_->options().lineage_dir;
  if (dir.empty() || !fs::is_directory(dir)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) out.push_back(lineage_record_from_json(Json::parse(read_file(f))));
  return out;
}

std::unique_ptr<SnapshotStore> open_anf_snapshot_store(const AnfOptions& options, const std::string& volume_id,
                                                       const std::string& label, std::ostream* progress) {
  return std::make_unique<AnfSnapshotStore>(std::make_unique<ArmClient>(options, progress),
                                            parse_volume_id(volume_id), label);
}

}  // namespace lane::storage::anf
