#include "storage/core/volume_origin.h"

#include <cctype>

#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"

namespace lane::storage {

namespace {

constexpr std::string_view kUser = "user";
constexpr std::string_view kJobPrefix = "job/";
constexpr std::string_view kRestorePrefix = "restore:";

// A Kubernetes label value, as a PVC's job label holds it: up to 63 of [A-Za-z0-9-_.],
// alphanumeric at both ends.
bool is_label_value(std::string_view v) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (v.empty() || v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

bool valid_job(const std::string& project, const std::string& name) {
  return project.empty() ? is_label_value(name) : is_dns1123_label(project) && is_dns1123_label(name);
}

}  // namespace

VolumeOrigin VolumeOrigin::job(const std::string& project, const std::string& name) {
  if (!valid_job(project, name))
    throw Error("'" + project + "/" + name + "' cannot be recorded as the job that created a volume");
  return VolumeOrigin(Kind::kJob, project, name);
}

VolumeOrigin VolumeOrigin::restore(const std::string& snapshot) {
  if (!is_snapshot_name(snapshot))
    throw Error("'" + snapshot + "' cannot be recorded as the snapshot a volume was restored from");
  return VolumeOrigin(Kind::kRestore, "", snapshot);
}

std::optional<VolumeOrigin> VolumeOrigin::parse(std::string_view text) {
  if (text == kUser) return user();
  if (text.substr(0, kRestorePrefix.size()) == kRestorePrefix) {
    std::string snapshot(text.substr(kRestorePrefix.size()));
    if (!is_snapshot_name(snapshot)) return std::nullopt;
    return VolumeOrigin(Kind::kRestore, "", snapshot);
  }
  std::string project, name(text);
  if (text.substr(0, kJobPrefix.size()) == kJobPrefix) {
    std::string_view rest = text.substr(kJobPrefix.size());
    auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0) return std::nullopt;
    project = rest.substr(0, slash);
    name = rest.substr(slash + 1);
  }
  if (!valid_job(project, name)) return std::nullopt;
  return VolumeOrigin(Kind::kJob, project, name);
}

std::string VolumeOrigin::str() const {
  switch (kind_) {
    case Kind::kUser: return std::string(kUser);
    case Kind::kRestore: return std::string(kRestorePrefix) + name_;
    case Kind::kJob: break;
  }
  return project_.empty() ? name_ : std::string(kJobPrefix) + project_ + "/" + name_;
}

}  // namespace lane::storage
