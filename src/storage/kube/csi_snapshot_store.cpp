#include "storage/kube/csi_snapshot_store.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "common/quantity.h"
#include "kube/credentials.h"

namespace lane::storage::kube {
namespace {

using Json = nlohmann::json;
namespace res = lane::kube::resources;

constexpr const char* kVolumeLabel = "lanectl.io/volume";
constexpr const char* kJobLabel = "lanectl.io/job";
constexpr const char* kMetadataAnnotation = "lanectl.io/metadata";
constexpr const char* kLineageLabel = "lanectl.io/lineage-of";

int64_t time_ms(const std::string& t) {
  auto tp = lane::kube::parse_rfc3339(t);
  return tp ? std::chrono::duration_cast<std::chrono::milliseconds>(tp->time_since_epoch()).count() : 0;
}

std::string text(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string snapshot_error(const Json& vs) {
  if (!vs.contains("status") || !vs["status"].contains("error")) return {};
  return text(vs["status"]["error"], "message");
}

bool ready(const Json& vs) {
  return vs.contains("status") && vs["status"].value("readyToUse", false);
}

}  // namespace

SnapshotInfo snapshot_info_from_object(const Json& vs) {
  SnapshotInfo info;
  const auto& meta = vs["metadata"];
  info.name = text(meta, "name");
  info.ns = text(meta, "namespace");
  info.volume = text(vs["spec"]["source"], "persistentVolumeClaimName");
  auto labels = meta.value("labels", Json::object());
  info.job = text(labels, kJobLabel);
  auto st = vs.value("status", Json::object());
  info.created_unix_ms = time_ms(text(st, "creationTime"));
  if (!info.created_unix_ms) info.created_unix_ms = time_ms(text(meta, "creationTimestamp"));
  std::string size = text(st, "restoreSize");
  if (auto b = lane::parse_quantity_bytes(size)) info.total_bytes = *b;
  info.files_known = false;
  auto ann = meta.value("annotations", Json::object());
  if (ann.contains(kMetadataAnnotation)) {
    auto m = Json::parse(text(ann, kMetadataAnnotation), nullptr, false);
    if (m.is_object()) {
      for (auto it = m.begin(); it != m.end(); ++it) {
        if (it->is_string()) info.metadata[it.key()] = it->get<std::string>();
      }
    }
  }
  if (!text(st, "boundVolumeSnapshotContentName").empty()) {
    info.metadata["content"] = text(st, "boundVolumeSnapshotContentName");
  }
  info.metadata["readyToUse"] = ready(vs) ? "true" : "false";
  return info;
}

CsiSnapshotStore::CsiSnapshotStore(std::shared_ptr<lane::kube::KubeClient> client, CsiSnapshotOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

SnapshotInfo CsiSnapshotStore::create(const std::string& volume, const std::string& name, const std::string& job,
                                      const std::map<std::string, std::string>& metadata) {
  require_snapshot_name(name);
  require_dns1123_label(volume, "volume");
  const std::string& ns = options_.ns;
  if (!client_->try_get(res::kPvc, ns, volume)) {
    throw lane::Error(fmt::format("volume '{}' does not exist in namespace {}; list claims with `lanectl volume list`",
                                  volume, ns));
  }
  Json labels{{kVolumeLabel, volume}, {"app.kubernetes.io/managed-by", "lanectl"}};
  if (!job.empty() && lane::is_dns1123_label(job)) labels[kJobLabel] = job;
  Json md = Json::object();
  for (const auto& [k, v] : metadata) md[k] = v;
  Json vs{{"apiVersion", "snapshot.storage.k8s.io/v1"},
          {"kind", "VolumeSnapshot"},
          {"metadata",
           {{"name", name}, {"namespace", ns}, {"labels", labels}, {"annotations", {{kMetadataAnnotation, md.dump()}}}}},
          {"spec", {{"source", {{"persistentVolumeClaimName", volume}}}}}};
  if (!options_.snapshot_class.empty()) vs["spec"]["volumeSnapshotClassName"] = options_.snapshot_class;
  try {
    client_->create_idempotent(res::kVolumeSnapshot, ns, vs);
  } catch (const lane::kube::ApiError& e) {
    if (e.already_exists()) throw UsageError(fmt::format("snapshot '{}' already exists in {}; pick another name", name, ns));
    throw;
  }
  auto start = std::chrono::steady_clock::now();
  std::string failure;
  auto done = [&](const Json& obj) {
    failure = snapshot_error(obj);
    return ready(obj) || !failure.empty();
  };
  auto on_change = [&](const Json& obj) {
    if (!options_.progress) return;
    auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
    options_.progress(fmt::format("snapshot {}: readyToUse={} ({}s)", name, ready(obj) ? "true" : "false", secs));
  };
  auto result = client_->wait_for(res::kVolumeSnapshot, ns, name, done, options_.ready_timeout, on_change);
  if (!result || !failure.empty()) {
    // All-or-nothing: a snapshot that failed or never became ready is removed.
    try {
      client_->remove(res::kVolumeSnapshot, ns, name, "Background");
    } catch (const lane::Error&) {
    }
    if (!failure.empty()) throw lane::Error(fmt::format("snapshot '{}' of '{}' failed: {}", name, volume, failure));
    throw lane::Error(fmt::format("snapshot '{}' of '{}' was not ready after {}s; check the VolumeSnapshotClass '{}' "
                                  "and the CSI driver (kubectl describe volumesnapshot {} -n {})",
                                  name, volume, options_.ready_timeout.count(), options_.snapshot_class, name, ns));
  }
  return snapshot_info_from_object(*result);
}

std::vector<SnapshotInfo> CsiSnapshotStore::list(const std::optional<std::string>& volume) {
  auto lr = client_->list(res::kVolumeSnapshot, options_.ns);
  std::vector<SnapshotInfo> out;
  for (const auto& vs : lr.items) {
    SnapshotInfo info = snapshot_info_from_object(vs);
    if (volume && info.volume != *volume) continue;
    out.push_back(std::move(info));
  }
  std::stable_sort(out.begin(), out.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
    return a.created_unix_ms != b.created_unix_ms ? a.created_unix_ms < b.created_unix_ms : a.name < b.name;
  });
  return out;
}

SnapshotInfo CsiSnapshotStore::describe(const std::string& name) {
  require_snapshot_name(name);
  auto vs = client_->try_get(res::kVolumeSnapshot, options_.ns, name);
  if (!vs) throw lane::Error(fmt::format("snapshot '{}' does not exist in {}", name, options_.ns));
  return snapshot_info_from_object(*vs);
}

void CsiSnapshotStore::remove(const std::string& name) {
  require_snapshot_name(name);
  try {
    client_->remove(res::kVolumeSnapshot, options_.ns, name, "Background");
  } catch (const lane::kube::ApiError& e) {
    if (e.not_found()) throw lane::Error(fmt::format("snapshot '{}' does not exist in {}", name, options_.ns));
    throw;
  }
  try {
    client_->remove(res::kConfigMap, options_.ns, "lineage-" + name, "Background");
  } catch (const lane::kube::ApiError& e) {
    if (!e.not_found()) throw;
  }
}

VerifyReport CsiSnapshotStore::verify(const std::string& name) {
  // The data lives in the storage system; what can be checked here is the driver's verdict.
  auto vs = client_->try_get(res::kVolumeSnapshot, options_.ns, name);
  if (!vs) throw lane::Error(fmt::format("snapshot '{}' does not exist in {}", name, options_.ns));
  VerifyReport r;
  r.snapshot = name;
  r.objects_checked = 1;
  if (std::string err = snapshot_error(*vs); !err.empty()) r.damaged.push_back(name + ": " + err);
  else if (!ready(*vs)) r.damaged.push_back(name + ": not readyToUse");
  return r;
}

void CsiSnapshotStore::restore_to_new_volume(const std::string& name, const std::string& new_volume) {
  require_snapshot_name(name);
  require_dns1123_label(new_volume, "--to-pvc");
  const std::string& ns = options_.ns;
  auto vs = client_->try_get(res::kVolumeSnapshot, ns, name);
  if (!vs) throw lane::Error(fmt::format("snapshot '{}' does not exist in {}", name, ns));
  if (!ready(*vs)) {
    throw lane::Error(fmt::format("snapshot '{}' is not readyToUse yet{}; restore after it is ready", name,
                                  snapshot_error(*vs).empty() ? "" : " (" + snapshot_error(*vs) + ")"));
  }
  if (client_->try_get(res::kPvc, ns, new_volume)) {
    throw UsageError(fmt::format("--to-pvc: claim '{}' already exists in {}; choose a new name", new_volume, ns));
  }
  std::string size = text((*vs)["status"], "restoreSize");
  std::string storage_class;
  std::string source = text((*vs)["spec"]["source"], "persistentVolumeClaimName");
  if (auto src = client_->try_get(res::kPvc, ns, source)) {
    storage_class = text((*src)["spec"], "storageClassName");
    // At least restoreSize; keep the source's request when it is larger.
    std::string requested = text((*src)["spec"]["resources"]["requests"], "storage");
    auto a = lane::parse_quantity_bytes(requested), b = lane::parse_quantity_bytes(size);
    if (a && (!b || *a > *b)) size = requested;
  }
  if (size.empty()) throw lane::Error(fmt::format("snapshot '{}' reports no restoreSize; cannot size the claim", name));
  Json ds{{"apiGroup", "snapshot.storage.k8s.io"}, {"kind", "VolumeSnapshot"}, {"name", name}};
  Json pvc{{"apiVersion", "v1"},
           {"kind", "PersistentVolumeClaim"},
           {"metadata",
            {{"name", new_volume},
             {"namespace", ns},
             {"labels", {{"app.kubernetes.io/managed-by", "lanectl"}}},
             {"annotations", {{"lanectl.io/restored-from", name}}}}},
           {"spec",
            {{"accessModes", Json::array({options_.restore_access_mode})},
             {"dataSource", ds},
             {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) pvc["spec"]["storageClassName"] = storage_class;
  client_->create_idempotent(res::kPvc, ns, pvc);
}

RevertPlan CsiSnapshotStore::plan_revert(const std::string& name, const std::string& volume) {
  SnapshotInfo target = describe(name);
  if (target.volume != volume) {
    throw UsageError(fmt::format("snapshot '{}' was taken of '{}', not '{}'", name, target.volume, volume));
  }
  RevertPlan plan{name, volume, {}};
  for (const auto& s : list(volume)) {
    if (s.created_unix_ms > target.created_unix_ms) plan.newer_snapshots.push_back(s.name);
  }
  return plan;
}

RevertPlan CsiSnapshotStore::revert_in_place(const std::string& name, const std::string& volume) {
  plan_revert(name, volume);  // same validation and errors
  throw lane::Error(
      "in-place revert is not available through CSI snapshots; restore into a new claim with "
      "'lanectl restore " + name + " --to-pvc NEW' (Trident's TridentActionSnapshotRestore can revert in place)");
}

void CsiSnapshotStore::record_lineage(const LineageRecord& record) {
  require_snapshot_name(record.snapshot);
  Json cm{{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", "lineage-" + record.snapshot},
            {"namespace", options_.ns},
            {"labels", {{kLineageLabel, record.snapshot}, {"app.kubernetes.io/managed-by", "lanectl"}}}}},
          {"data", {{"lineage.json", to_json(record).dump()}}}};
  auto existing = client_->try_get(res::kConfigMap, options_.ns, "lineage-" + record.snapshot);
  if (existing) {
    cm["metadata"]["resourceVersion"] = (*existing)["metadata"]["resourceVersion"];
    client_->replace(res::kConfigMap, options_.ns, "lineage-" + record.snapshot, cm);
  } else {
    client_->create_idempotent(res::kConfigMap, options_.ns, cm);
  }
}

std::optional<LineageRecord> CsiSnapshotStore::lineage(const std::string& snapshot) {
  auto cm = client_->try_get(res::kConfigMap, options_.ns, "lineage-" + snapshot);
  if (!cm) return std::nullopt;
  return lineage_record_from_json(Json::parse(text((*cm)["data"], "lineage.json")));
}

std::vector<LineageRecord> CsiSnapshotStore::all_lineage() {
  lane::kube::ListOptions o;
  o.label_selector = kLineageLabel;
  std::vector<LineageRecord> out;
  for (const auto& cm : client_->list(res::kConfigMap, options_.ns, o).items) {
    out.push_back(lineage_record_from_json(Json::parse(text(cm["data"], "lineage.json"))));
  }
  return out;
}

// --- PVCs as Volumes ------------------------------------------------------------------------

PvcVolumes::PvcVolumes(std::shared_ptr<lane::kube::KubeClient> client, std::string ns, std::string access_mode,
                       std::string project)
    : client_(std::move(client)), ns_(std::move(ns)), access_mode_(std::move(access_mode)), project_(std::move(project)) {}

namespace {
VolumeInfo volume_from_pvc(const Json& pvc) {
  VolumeInfo v;
  v.name = text(pvc["metadata"], "name");
  v.size = text(pvc["spec"]["resources"]["requests"], "storage");
  v.storage_class = text(pvc["spec"], "storageClassName");
  auto ann = pvc["metadata"].value("annotations", Json::object());
  auto labels = pvc["metadata"].value("labels", Json::object());
  // A restore's annotation, else the job label (VolumeOrigin's "<job>" form), else a user.
  if (std::string from = text(ann, "lanectl.io/restored-from"); is_snapshot_name(from))
    v.origin = VolumeOrigin::restore(from);
  else if (auto job = VolumeOrigin::parse(text(labels, kJobLabel)))
    v.origin = *job;
  v.created_unix_ms = time_ms(text(pvc["metadata"], "creationTimestamp"));
  return v;
}
}  // namespace

std::optional<VolumeInfo> PvcVolumes::find(const std::string& name) {
  auto pvc = client_->try_get(res::kPvc, ns_, name);
  if (!pvc) return std::nullopt;
  VolumeInfo v = volume_from_pvc(*pvc);
  v.project = project_;
  return v;
}

std::vector<VolumeInfo> PvcVolumes::list() {
  std::vector<VolumeInfo> out;
  for (const auto& pvc : client_->list(res::kPvc, ns_).items) {
    out.push_back(volume_from_pvc(pvc));
    out.back().project = project_;
  }
  return out;
}

VolumeInfo PvcVolumes::create(const std::string& name, const std::string& size, const std::string& storage_class,
                              const VolumeOrigin& origin) {
  require_dns1123_label(name, "volume name");
  if (!lane::parse_quantity_bytes(size)) {
    throw UsageError(fmt::format("size '{}' is not a Kubernetes quantity such as 100Gi", size));
  }
  Json pvc{{"apiVersion", "v1"},
           {"kind", "PersistentVolumeClaim"},
           {"metadata", {{"name", name}, {"namespace", ns_}, {"labels", {{"app.kubernetes.io/managed-by", "lanectl"}}}}},
           {"spec", {{"accessModes", Json::array({access_mode_})}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) pvc["spec"]["storageClassName"] = storage_class;
  if (origin.kind() == VolumeOrigin::Kind::kJob && lane::is_dns1123_label(origin.job()))
    pvc["metadata"]["labels"][kJobLabel] = origin.job();
  try {
    return volume_from_pvc(client_->create_idempotent(res::kPvc, ns_, pvc));
  } catch (const lane::kube::ApiError& e) {
    if (e.already_exists()) throw lane::Error(fmt::format("volume '{}' already exists in {}", name, ns_));
    throw;
  }
}

void PvcVolumes::remove(const std::string& name) {
  try {
    client_->remove(res::kPvc, ns_, name, "Background");
  } catch (const lane::kube::ApiError& e) {
    if (e.not_found()) throw lane::Error(fmt::format("volume '{}' does not exist in {}", name, ns_));
    throw;
  }
}

}  // namespace lane::storage::kube
