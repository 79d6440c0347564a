#pragma once
// Volumes (persistent volume claims) as the storage layer sees them. Each backend implements
// this: the local backend keeps claims as directories it owns, Kubernetes as PVCs.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "storage/core/volume_origin.h"

namespace lane::storage {

struct VolumeInfo {
  std::string name;                   // claim name (DNS-1123)
  std::string size;                   // requested size, a Kubernetes quantity ("10Gi")
  std::string storage_class;          // empty = default
  std::filesystem::path local_path;   // local backend: the directory holding the data; empty elsewhere
  VolumeOrigin origin = VolumeOrigin::user();  // a user, the job that created it, or a restore
  int64_t created_unix_ms = 0;
  // Set by a create that succeeded with a caveat the user should hear once (the local backend's
  // thin provisioning beyond the free space); not stored.
  std::string warning;
  std::string project;       // the project it belongs to ("" = not known to the store)
  std::optional<bool> thin;  // provisioned thin (nothing reserved); nullopt = not known
};

class Volumes {
 public:
  virtual ~Volumes() = default;
  virtual std::optional<VolumeInfo> find(const std::string& name) = 0;
  virtual std::vector<VolumeInfo> list() = 0;
  // Creates an empty claim; throws lane::Error if the name exists. The size is a request to the
  // provisioner: the local backend provisions thin and says so in VolumeInfo::warning when the
  // disk is smaller than the request.
  virtual VolumeInfo create(const std::string& name, const std::string& size,
                            const std::string& storage_class, const VolumeOrigin& origin) = 0;
  virtual void remove(const std::string& name) = 0;
};

}  // namespace lane::storage
