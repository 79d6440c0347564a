#include "storage/anf/resource_id.h"

#include <vector>

#include "common/error.h"

namespace lane::storage::anf {

std::string VolumeRef::account_id() const {
  return "/subscriptions/" + subscription + "/resourceGroups/" + resource_group +
         "/providers/Microsoft.NetApp/netAppAccounts/" + account;
}
std::string VolumeRef::pool_id() const { return account_id() + "/capacityPools/" + pool; }
std::string VolumeRef::id() const { return pool_id() + "/volumes/" + volume; }
std::string VolumeRef::snapshot_id(const std::string& s) const { return id() + "/snapshots/" + s; }
VolumeRef VolumeRef::in_pool(const std::string& other) const {
  VolumeRef r = *this;
  r.pool = other;
  return r;
}

VolumeRef parse_volume_id(const std::string& id, const std::string& field) {
  std::vector<std::string> parts;
  size_t start = 0;
  if (id.empty() || id[0] != '/') start = std::string::npos;
  while (start != std::string::npos && start < id.size()) {
    size_t next = id.find('/', start + 1);
    parts.push_back(id.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1));
    start = next;
  }
  auto eq = [](const std::string& a, const char* b) {
    if (a.size() != std::char_traits<char>::length(b)) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
  };
  bool ok = parts.size() == 12 && eq(parts[0], "subscriptions") && eq(parts[2], "resourceGroups") &&
            eq(parts[4], "providers") && eq(parts[5], "Microsoft.NetApp") &&
            eq(parts[6], "netAppAccounts") && eq(parts[8], "capacityPools") && eq(parts[10], "volumes");
  for (const auto& p : parts) ok = ok && !p.empty() && p.find_first_of("?#&%") == std::string::npos;
  if (!ok)
    throw UsageError(field + ": '" + id + "' is not an ANF volume resource id; expected "
                     "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.NetApp/netAppAccounts/"
                     "{account}/capacityPools/{pool}/volumes/{volume}");
  return VolumeRef{parts[1], parts[3], parts[7], parts[9], parts[11]};
}

std::string leaf_name(const std::string& id_or_name) {
  auto slash = id_or_name.rfind('/');
  return slash == std::string::npos ? id_or_name : id_or_name.substr(slash + 1);
}

}  // namespace lane::storage::anf
