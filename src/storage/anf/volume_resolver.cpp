#include "storage/anf/volume_resolver.h"

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::storage::anf {
namespace {

const kube::Resource kPersistentVolume{"", "v1", "persistentvolumes", "PersistentVolume", false};

// "rg/account" or "account" (with exactly one resourceGroups entry) → account ARM id.
std::string account_id_of(const AnfOptions& o, const std::string& entry) {
  VolumeRef r;
  r.subscription = o.subscription_id;
  auto slash = entry.find('/');
  if (slash != std::string::npos) {
    r.resource_group = entry.substr(0, slash);
    r.account = entry.substr(slash + 1);
  } else if (o.resource_groups.size() == 1) {
    r.resource_group = o.resource_groups[0];
    r.account = entry;
  } else {
    throw UsageError("ANF config: netappAccounts entry '" + entry +
                     "' needs its resource group: write it as \"<resourceGroup>/" + entry +
                     "\" or list exactly one resourceGroups entry");
  }
  return r.account_id();
}

bool pool_wanted(const AnfOptions& o, const std::string& pool_name) {
  if (o.capacity_pools.empty()) return true;
  for (const auto& p : o.capacity_pools)
    if (leaf_name(p) == pool_name) return true;
  return false;
}

Json read_moves(const std::filesystem::path& file) {
  if (file.empty() || !std::filesystem::exists(file)) return Json::object();
  Json moves = Json::parse(read_file(file), nullptr, false);
  return moves.is_object() ? moves : Json::object();  // a damaged record is only a cache
}

// The pools of the account that hold a volume named `name`.
std::vector<VolumeRef> volumes_named(ArmClient& arm, const VolumeRef& ref) {
  std::vector<VolumeRef> found;
  for (const Json& pool : arm.list(ref.account_id() + "/capacityPools")) {
    VolumeRef candidate = ref.in_pool(leaf_name(pool.value("id", pool.value("name", ""))));
    if (arm.try_get(candidate.id())) found.push_back(candidate);
  }
  return found;
}

}  // namespace

VolumeRef locate_moved_volume(ArmClient& arm, const VolumeRef& resolved, const std::filesystem::path& moves_file) {
  Json moves = read_moves(moves_file);
  const std::string stored = resolved.id();
  if (auto it = moves.find(stored); it != moves.end() && it->is_string()) {
    VolumeRef moved = parse_volume_id(it->get<std::string>(), moves_file.string());
    if (arm.try_get(moved.id())) return moved;
  } else if (arm.try_get(stored)) {
    return resolved;
  }
  auto found = volumes_named(arm, resolved);
  if (found.empty())
    throw Error("ANF volume not found: " + stored + " (no capacity pool of account '" + resolved.account +
                "' has a volume named '" + resolved.volume + "'); pass --volume-id");
  if (found.size() > 1)
    throw Error("ANF volume " + stored + " is gone and " + std::to_string(found.size()) + " pools have a volume named '" +
                resolved.volume + "' (e.g. " + found[0].id() + "); pass --volume-id");
  if (!moves_file.empty()) {
    moves[stored] = found[0].id();
    std::filesystem::create_directories(moves_file.parent_path());
    write_file_atomic(moves_file, moves.dump(2) + "\n");
  }
  return found[0];
}

VolumeRef find_by_creation_token(ArmClient& arm, const std::string& token) {
  const AnfOptions& o = arm.options();
  if (o.netapp_accounts.empty() || o.subscription_id.empty())
    throw UsageError("ANF: the PV carries no internalID, and the creationToken fallback needs "
                     "subscriptionID and netappAccounts (\"rg/account\") in the ANF config; or pass --volume-id");
  std::vector<VolumeRef> found;
  for (const auto& entry : o.netapp_accounts) {
    const std::string acc = account_id_of(o, entry);
    for (const Json& pool : arm.list(acc + "/capacityPools")) {
      const std::string pool_name = leaf_name(pool.value("id", pool.value("name", "")));
      if (!pool_wanted(o, pool_name)) continue;
      for (const Json& vol : arm.list(acc + "/capacityPools/" + pool_name + "/volumes")) {
        if (vol.contains("properties") && vol["properties"].value("creationToken", "") == token)
          found.push_back(parse_volume_id(vol.value("id", ""), "volume id from ARM"));
      }
    }
  }
  if (found.empty())
    throw Error("ANF: no volume with creationToken '" + token + "' in the configured accounts (" +
                std::to_string(o.netapp_accounts.size()) + "); check netappAccounts/capacityPools or pass --volume-id");
  if (found.size() > 1)
    throw Error("ANF: " + std::to_string(found.size()) + " volumes have creationToken '" + token +
                "' (e.g. " + found[0].id() + " and " + found[1].id() + "); pass --volume-id");
  return found[0];
}

ResolvedVolume resolve_pvc(kube::KubeClient& kube, ArmClient& arm, const std::string& ns,
                           const std::string& pvc) {
  auto claim = kube.try_get(kube::resources::kPvc, ns, pvc);
  if (!claim) throw Error("PVC '" + pvc + "' not found in namespace '" + ns + "'");
  std::string pv_name = (*claim)["spec"].value("volumeName", "");
  if (pv_name.empty())
    throw Error("PVC '" + pvc + "' is not bound to a PersistentVolume yet (status " +
                (*claim)["status"].value("phase", "unknown") + "); wait until it is Bound");
  kube::Json pv = kube.get(kPersistentVolume, "", pv_name);
  const kube::Json csi = pv["spec"].value("csi", kube::Json::object());
  const std::string driver = csi.value("driver", "");
  if (driver != "csi.trident.netapp.io")
    throw Error("PV '" + pv_name + "' of PVC '" + pvc + "' is not provisioned by Trident (CSI driver '" +
                driver + "'); only Azure NetApp Files volumes via Trident are supported; or pass --volume-id");
  const kube::Json attrs = csi.value("volumeAttributes", kube::Json::object());
  ResolvedVolume out;
  out.pvc = pvc;
  out.pv = pv_name;
  std::string internal_id = attrs.value("internalID", "");
  if (!internal_id.empty()) {
    out.ref = parse_volume_id(internal_id, "PV " + pv_name + " volumeAttributes.internalID");
    out.method = "internalID";
    return out;
  }
  std::string token = attrs.value("internalName", "");
  if (token.empty()) token = pv_name;
  out.ref = find_by_creation_token(arm, token);
  out.method = "creationToken";
  return out;
}

}  // namespace lane::storage::anf
