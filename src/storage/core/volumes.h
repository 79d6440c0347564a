#pragma once
// Volumes (persistent volume claims) as the storage layer sees them. Each backend implements
// this: the local backend keeps claims as directories it owns, Kubernetes as PVCs.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lane::storage {

struct VolumeInfo {
  std::string name;                   // claim name (DNS-1123)
  std::string size;                   // requested size, a Kubernetes quantity ("10Gi")
  std::string storage_class;          // empty = default
  std::filesystem::path local_path;   // local backend: the directory holding the data; empty elsewhere
  std::string created_by;             // job that created it, or "restore:<snapshot>", or "user"
  int64_t created_unix_ms = 0;
  // Set by a create that succeeded with a caveat the user should hear once (the local backend's
  // thin provisioning beyond the free space); not stored.
  std::string warning;
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
                            const std::string& storage_class, const std::string& created_by) = 0;
  virtual void remove(const std::string& name) = 0;

  // --- publishing prepared data (restore) ---------------------------------------------------
  // A hidden directory on the same file system as the claims' directories, where a restore
  // builds a claim's data before publishing it; empty when the backend has no local directories.
  virtual std::filesystem::path staging_dir() { return {}; }
  // Registers the new claim `name` whose data is the directory `prepared` (under staging_dir()),
  // moving it into place with one rename inside the registration: the claim appears complete or
  // not at all. Throws lane::Error when the backend cannot (the default).
  virtual VolumeInfo create_from(const std::string& name, const std::string& size,
                                 const std::string& storage_class, const std::string& created_by,
                                 const std::filesystem::path& prepared);
  // Removes what interrupted operations left: staging entries of processes that are gone and
  // claim directories that were never registered. A no-op where there is nothing local.
  virtual void remove_debris() {}
};

}  // namespace lane::storage
