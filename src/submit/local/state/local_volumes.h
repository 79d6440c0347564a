#pragma once
// storage::Volumes for the local backend: a claim is a directory $LANECTL_HOME/volumes/<name>
// owned by the backend, with its requested size recorded in the state database. Claims are
// provisioned thin, as a PVC's size is a request to a provisioner and not a reservation of local
// disk: nothing is reserved, and a request larger than the free space of the file system
// (statvfs) is accepted with a warning (VolumeInfo::warning). The size is not enforced as a limit:
// that needs project quotas, which the local backend does not set up.
//
// A claim belongs to a project, as a PVC belongs to its namespace: a job mounts only claims of
// its own project. A claim a job creates belongs to the job's project; a restored claim to the
// project of the claim its snapshot was taken of. Claims recorded by an earlier version without
// a project are resolved the same way on first use; one that still has no project (its creator
// is unknown or its snapshot is gone) is adopted by the project of the first job that mounts it.
#include <functional>

#include "storage/local/directory_volumes.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {

class LocalVolumes : public storage::local::DirectoryVolumes {
 public:
  LocalVolumes(Database& db, Paths paths) : db_(db), paths_(std::move(paths)) {}

  // The size of a claim a job names with --pvc NAME:PATH when it does not exist yet.
  static constexpr const char* kDefaultClaimSize = "10Gi";

  std::optional<storage::VolumeInfo> find(const std::string& name) override;
  std::vector<storage::VolumeInfo> list() override;
  storage::VolumeInfo create(const std::string& name, const std::string& size,
                             const std::string& storage_class, const storage::VolumeOrigin& origin) override;
  void remove(const std::string& name) override;
  std::filesystem::path staging_dir() override;
  storage::VolumeInfo create_from(const std::string& name, const std::string& size, const std::string& storage_class,
                                  const storage::VolumeOrigin& origin, const std::filesystem::path& prepared) override;
  void remove_debris() override;

  // remove() in two steps, for a caller that checks more in the same transaction: the row, inside
  // the caller's write transaction; after its commit, the claim's directory (only when the state
  // no longer records the claim, and never through a symbolic link).
  void remove_row(const std::string& name);
  void remove_data(const std::string& name, ProgressSink* progress = nullptr);

  // The same as create() but inside the caller's write transaction (used by submit).
  storage::VolumeInfo create_in_transaction(const std::string& name, const std::string& size,
                                            const std::string& storage_class, const storage::VolumeOrigin& origin);

  // The project the claim belongs to: the recorded one, else the one its creator implies;
  // "" when neither is known (an unowned claim of an earlier version).
  std::string owner(const std::string& name);
  // Records `project` as the owner of an unowned claim (inside the caller's write transaction).
  void adopt(const std::string& name, const std::string& project);

  // Maps an origin other than a job of a project (a restore) to a project, "" when unknown.
  // Set by the backend, which knows the snapshots.
  using OwnerResolver = std::function<std::string(const storage::VolumeOrigin& origin)>;
  void set_owner_resolver(OwnerResolver resolver) { resolver_ = std::move(resolver); }

 private:
  std::string project_of_creator(const storage::VolumeOrigin& origin);
  // Removes the claim directories that a dead process recorded it might leave without a row
  // (an interrupted restore or delete), unless the claim is registered (caller's transaction).
  void sweep_claim_markers();

  Database& db_;
  Paths paths_;
  OwnerResolver resolver_;
  int resolving_ = 0;  // depth guard: a restored claim's source may itself be restored
};

}  // namespace lane::submit::local
