#pragma once
// PVC → ANF volume. Trident stores the volume's full ARM id in the bound PV as
// spec.csi.volumeAttributes.internalID; when that is missing (older Trident, imported volumes)
// we fall back to Trident's own lookup: the volume whose creationToken equals the PV's
// internalName (= the PV name "pvc-<uuid>" in CSI mode), searched in the accounts/pools the
// ANF config names (netappAccounts "rg/account", capacityPools), as ANF has no lookup by token.
#include <filesystem>
#include <string>

#include "storage/anf/arm_client.h"
#include "storage/anf/resource_id.h"
#include "kube/kube_client.h"

namespace lane::storage::anf {

struct ResolvedVolume {
  VolumeRef ref;
  std::string pvc;     // the claim name ("" with --volume-id)
  std::string pv;      // the bound PV name
  std::string method;  // "internalID" | "creationToken" | "volume-id"
};

ResolvedVolume resolve_pvc(kube::KubeClient& kube, ArmClient& arm, const std::string& ns,
                           const std::string& pvc);

// The volume `resolved` names, where it is now: a service-level change moves a volume to another
// pool, but the PV's internalID (which Trident owns) still names the old one. When ARM has no
// volume at the stored id, the volume of that name is searched in the account's pools; one found
// is used, and remembered in `moves_file` (stale id -> current id; "" = not remembered), which is
// read first next time. Throws Error when no pool of the account has it.
VolumeRef locate_moved_volume(ArmClient& arm, const VolumeRef& resolved, const std::filesystem::path& moves_file);

// Finds the volume whose properties.creationToken is `token` in the configured accounts/pools.
// Throws UsageError when no account is configured, Error when none or several match.
VolumeRef find_by_creation_token(ArmClient& arm, const std::string& token);

}  // namespace lane::storage::anf
