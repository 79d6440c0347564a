#pragma once
// storage::Volumes for the local backend: a claim is a directory $LANECTL_HOME/volumes/<name>
// owned by the backend, with its requested size recorded in the state database. Creation checks
// the size against the free space of the file system (statvfs).
#include "storage/core/volumes.h"
#include "submit/local/state_store.h"

namespace lane::submit::local {

class LocalVolumes : public storage::Volumes {
 public:
  LocalVolumes(Database& db, Paths paths) : db_(db), paths_(std::move(paths)) {}

  std::optional<storage::VolumeInfo> find(const std::string& name) override;
  std::vector<storage::VolumeInfo> list() override;
  storage::VolumeInfo create(const std::string& name, const std::string& size,
                             const std::string& storage_class, const std::string& created_by) override;
  void remove(const std::string& name) override;
  std::filesystem::path staging_dir() override;
  storage::VolumeInfo create_from(const std::string& name, const std::string& size, const std::string& storage_class,
                                  const std::string& created_by, const std::filesystem::path& prepared) override;
  void remove_debris() override;

  // The same as create() but inside the caller's write transaction (used by submit).
  storage::VolumeInfo create_in_transaction(const std::string& name, const std::string& size,
                                            const std::string& storage_class, const std::string& created_by);

 private:
  Database& db_;
  Paths paths_;
};

}  // namespace lane::submit::local
