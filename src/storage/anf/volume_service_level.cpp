#include "storage/anf/volume_service_level.h"

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace lane::storage::anf {
namespace {

constexpr double kTiB = 1099511627776.0;

double number_or(const Json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

int64_t used_bytes_in_pool(ArmClient& arm, const std::string& pool_id) {
  int64_t used = 0;
  for (const Json& v : arm.list(pool_id + "/volumes"))
    used += v.value("properties", Json::object()).value("usageThreshold", int64_t{0});
  return used;
}

std::string gib(int64_t bytes) { return std::to_string(bytes / 1073741824) + " GiB"; }

}  // namespace

Json VolumeFacts::to_json() const {
  return Json{{"id", id},
              {"name", name},
              {"location", location},
              {"creationToken", creation_token},
              {"provisioningState", provisioning_state},
              {"pool", pool},
              {"serviceLevel", service_level},
              {"poolQosType", pool_qos_type},
              {"quotaBytes", quota_bytes},
              {"poolSizeBytes", pool_size_bytes},
              {"throughputMibps", throughput_mibps},
              {"poolTotalThroughputMibps", pool_total_throughput_mibps}};
}

VolumeFacts describe_volume(ArmClient& arm, const VolumeRef& ref) {
  auto vol = arm.try_get(ref.id());
  if (!vol) throw Error("ANF volume not found: " + ref.id());
  const Json vp = vol->value("properties", Json::object());
  const Json pool = arm.get(ref.pool_id());
  const Json pp = pool.value("properties", Json::object());
  VolumeFacts f;
  f.id = ref.id();
  f.name = ref.volume;
  f.location = vol->value("location", "");
  f.creation_token = vp.value("creationToken", "");
  f.provisioning_state = vp.value("provisioningState", "");
  f.pool = ref.pool;
  f.service_level = vp.value("serviceLevel", pp.value("serviceLevel", ""));
  f.pool_qos_type = pp.value("qosType", "Auto");
  f.quota_bytes = vp.value("usageThreshold", int64_t{0});
  f.pool_size_bytes = pp.value("size", int64_t{0});
  f.throughput_mibps = number_or(vp, "throughputMibps", number_or(vp, "actualThroughputMibps", 0));
  f.pool_total_throughput_mibps = number_or(pp, "totalThroughputMibps", 0);
  return f;
}

std::string parse_service_level(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "standard") return "Standard";
  if (lower == "premium") return "Premium";
  if (lower == "ultra") return "Ultra";
  throw UsageError("service level '" + text + "': use Standard, Premium or Ultra");
}

PoolChangeResult change_service_level(ArmClient& arm, const VolumeRef& ref, const std::string& level,
                                      const std::string& pool_name) {
  const std::string wanted = parse_service_level(level);
  auto vol = arm.try_get(ref.id());
  if (!vol) throw Error("ANF volume not found: " + ref.id());
  const Json vp = vol->value("properties", Json::object());
  const Json current_pool = arm.get(ref.pool_id()).value("properties", Json::object());
  PoolChangeResult result{ref.pool, "", current_pool.value("serviceLevel", vp.value("serviceLevel", "")), wanted};

  // Candidate pools of that level in the same account (ANF cannot move across accounts).
  std::vector<Json> candidates;
  for (const Json& p : arm.list(ref.account_id() + "/capacityPools")) {
    const std::string name = leaf_name(p.value("id", p.value("name", "")));
    if (!pool_name.empty() && name != pool_name) continue;
    if (p.value("properties", Json::object()).value("serviceLevel", "") == wanted) candidates.push_back(p);
    else if (!pool_name.empty())
      throw UsageError("--pool " + pool_name + " has service level '" +
                       p["properties"].value("serviceLevel", "") + "', not " + wanted);
  }
  if (candidates.empty())
    throw Error("no " + wanted + " capacity pool " + (pool_name.empty() ? "" : "named '" + pool_name + "' ") +
                "in NetApp account '" + ref.account + "': ANF changes a volume's service level by moving it "
                "to an existing pool of that level in the same account; create one first "
                "(az netappfiles pool create --service-level " + wanted + ")");
  const int64_t need = vp.value("usageThreshold", int64_t{0});
  std::string why_not;
  for (const Json& p : candidates) {
    const std::string name = leaf_name(p.value("id", ""));
    const Json pp = p.value("properties", Json::object());
    if (name == ref.pool) {
      why_not = "the volume is already in " + wanted + " pool '" + name + "' (ANF refuses a change to the same pool)";
      continue;
    }
    if (pp.value("encryptionType", "Single") != current_pool.value("encryptionType", "Single")) {
      why_not = "pool '" + name + "' has encryptionType " + pp.value("encryptionType", "Single") +
                " but the volume's pool has " + current_pool.value("encryptionType", "Single") +
                " (ANF cannot move volumes between single- and double-encrypted pools)";
      continue;
    }
    const std::string pool_id = ref.in_pool(name).pool_id();
    const int64_t free = pp.value("size", int64_t{0}) - used_bytes_in_pool(arm, pool_id);
    if (free < need) {
      why_not = "pool '" + name + "' is too small: " + gib(free) + " unallocated, the volume's quota is " +
                gib(need) + " (grow the pool in 1 TiB steps first)";
      continue;
    }
    arm.post_action(ref.id(), "poolChange", Json{{"newPoolResourceId", pool_id}},
                    "move " + ref.volume + " to pool " + name + " (" + wanted + ")");
    result.to_pool = name;
    return result;
  }
  throw Error("cannot change '" + ref.volume + "' to " + wanted + ": " + why_not);
}

}  // namespace lane::storage::anf
