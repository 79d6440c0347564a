#pragma once
// PVC → ANF volume. Trident stores the volume's full ARM id in the bound PV as
// spec.csi.volumeAttributes.internalID; when that is missing (older Trident, imported volumes)
// we fall back to Trident's own lookup: the volume whose creationToken equals the PV's
// internalName (= the PV name "pvc-<uuid>" in CSI mode), searched in the accounts/pools the
// ANF config names (netappAccounts "rg/account", capacityPools), as ANF has no lookup by token.
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

// Finds the volume whose properties.creationToken is `token` in the configured accounts/pools.
// Throws UsageError when no account is configured, Error when none or several match.
VolumeRef find_by_creation_token(ArmClient& arm, const std::string& token);

}  // namespace lane::storage::anf
