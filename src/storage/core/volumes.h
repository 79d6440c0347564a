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
};

class Volumes {
 public:
  virtual ~Volumes() = default;
  virtual std::optional<VolumeInfo> find(const std::string& name) = 0;
  virtual std::vector<VolumeInfo> list() = 0;
  // Creates an empty claim; throws lane::Error if the name exists or space is short.
  virtual VolumeInfo create(const std::string& name, const std::string& size,
                            const std::string& storage_class, const std::string& created_by) = 0;
  virtual void remove(const std::string& name) = 0;
};

}  // namespace lane::storage
