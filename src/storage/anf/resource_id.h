#pragma once
// ARM ids of ANF volumes: /subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.NetApp/
// netAppAccounts/{a}/capacityPools/{p}/volumes/{v}. Parsed once so every URL is built from parts.
#include <string>

namespace lane::storage::anf {

struct VolumeRef {
  std::string subscription, resource_group, account, pool, volume;

  std::string account_id() const;
  std::string pool_id() const;
  std::string id() const;
  std::string snapshot_id(const std::string& snapshot) const;
  VolumeRef in_pool(const std::string& other_pool) const;
};

// Throws UsageError naming `field` when `id` is not a volume id (a trailing
// /snapshots/... is not accepted either).
VolumeRef parse_volume_id(const std::string& id, const std::string& field = "--volume-id");

// The last path segment of an ARM id ("account/pool/vol/snap" names too).
std::string leaf_name(const std::string& id_or_name);

}  // namespace lane::storage::anf
