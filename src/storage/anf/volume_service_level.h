#pragma once
// Volume facts (pool, service level, quota, throughput) and the service-level change, which in
// ANF is a pool change: the volume moves, without copying data, to an existing pool of the
// wanted level in the same NetApp account.
#include <string>

#include "storage/anf/arm_client.h"
#include "storage/anf/resource_id.h"

namespace lane::storage::anf {

struct VolumeFacts {
  std::string id, name, location, creation_token, provisioning_state;
  std::string pool, service_level, pool_qos_type;
  int64_t quota_bytes = 0;
  int64_t pool_size_bytes = 0;
  double throughput_mibps = 0;         // throughputMibps, else actualThroughputMibps
  double pool_total_throughput_mibps = 0;
  Json to_json() const;
};

VolumeFacts describe_volume(ArmClient& arm, const VolumeRef& volume);

// Standard | Premium | Ultra (case-insensitive) → canonical spelling; UsageError otherwise.
std::string parse_service_level(const std::string& text);

struct PoolChangeResult {
  std::string from_pool, to_pool, from_level, to_level;
};

// Picks the pool of `level` in the volume's account (or `pool_name` when given, which must have
// that level) and POSTs poolChange. Errors explain ANF's constraints: no such pool, same pool,
// pool too small for the volume, encryption type differs.
PoolChangeResult change_service_level(ArmClient& arm, const VolumeRef& volume, const std::string& level,
                                      const std::string& pool_name);

}  // namespace lane::storage::anf
