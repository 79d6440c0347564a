#pragma once
// Test double for storage::local::DirectoryVolumes: each claim is a directory <root>/<name>.
#include <filesystem>
#include <map>

#include "common/debris.h"
#include "common/error.h"
#include "storage/core/snapshots.h"
#include "storage/local/directory_volumes.h"

namespace lane::test {

class DirVolumes : public storage::local::DirectoryVolumes {
 public:
  explicit DirVolumes(std::filesystem::path root) : root_(std::move(root)) {
    std::filesystem::create_directories(root_);
  }
  std::optional<storage::VolumeInfo> find(const std::string& name) override {
    auto it = vols_.find(name);
    if (it == vols_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<storage::VolumeInfo> list() override {
    std::vector<storage::VolumeInfo> out;
    for (auto& [k, v] : vols_) out.push_back(v);
    return out;
  }
  storage::VolumeInfo create(const std::string& name, const std::string& size,
                             const std::string& storage_class, const storage::VolumeOrigin& origin) override {
    if (vols_.count(name)) throw Error("volume exists: " + name);
    storage::VolumeInfo v{name, size, storage_class, root_ / name, origin, storage::now_unix_ms(), {}, {}, {}};
    std::filesystem::create_directories(v.local_path);
    vols_[name] = v;
    return v;
  }
  std::filesystem::path staging_dir() override { return root_ / ".staging"; }
  storage::VolumeInfo create_from(const std::string& name, const std::string& size, const std::string& storage_class,
                                  const storage::VolumeOrigin& origin, const std::filesystem::path& prepared) override {
    storage::VolumeInfo v = create(name, size, storage_class, origin);
    std::filesystem::rename(prepared, v.local_path);  // replaces the empty directory
    return v;
  }
  void remove_debris() override { remove_dead_staging(staging_dir()); }
  void remove(const std::string& name) override {
    auto it = vols_.find(name);
    if (it == vols_.end()) throw Error("no volume " + name);
    std::filesystem::remove_all(it->second.local_path);
    vols_.erase(it);
  }

 private:
  std::filesystem::path root_;
  std::map<std::string, storage::VolumeInfo> vols_;
};

}  // namespace lane::test
