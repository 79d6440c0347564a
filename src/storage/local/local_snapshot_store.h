#pragma once
// The local backend's SnapshotStore: a content-addressed store under <root> (normally
// $LANECTL_HOME/snapshots):
//   objects/   file contents by SHA-256 (shared by all snapshots; see object_store.h)
//   manifests/ <snapshot>.json: the tree, metadata and digests (published last, atomically)
//   index/     <snapshot>.json: a copy of the manifest's small "info" part so listing does
//              not parse every tree (written after the manifest; rebuilt from it if missing)
//   lineage/   <snapshot>.json: job, parent, dataset digest, metrics
//   lock       flock: shared while creating/restoring/verifying, exclusive while deleting
// A snapshot of an unchanged volume costs a directory scan: files whose (path, size, mtime,
// inode) match the volume's previous snapshot reuse its digests without being read.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "storage/core/snapshots.h"
#include "storage/local/directory_volumes.h"
#include "storage/local/manifest.h"
#include "storage/local/object_store.h"

namespace lane::storage::local {

// Held while a snapshot reads its volume, so that it is one point in time: the local backend
// freezes the volume's writers (submit/local/job_freeze.h). Destroying it ends the hold and
// must not throw.
class CaptureHold {
 public:
  virtual ~CaptureHold() = default;
  // Records in the snapshot's metadata what was held (or why the snapshot is not point in time).
  virtual void annotate(std::map<std::string, std::string>& metadata) const = 0;
  // Between files: throws lane::Error to abandon the snapshot (lanectl was interrupted).
  virtual void check() = 0;
  // Ends the hold once every file is read; throws lane::Error when the capture turned out not to
  // be point in time (a writer that was not held) or a writer could not be let go.
  virtual void release() = 0;
};

struct LocalStoreOptions {
  // Holds the volume's writers while a snapshot of `volume` reads it (nullptr: nothing to hold).
  std::function<std::unique_ptr<CaptureHold>(const std::string& volume)> hold_writers;
  // Called after each file of a snapshot is stored (files_done counts from 1). Tests use it
  // to stop a snapshot half way (SIGKILL) or to fail it (throw, as a full disk would).
  std::function<void(uint64_t files_done)> after_file;
  // Called after each file a restore or revert has copied (crash tests stop it there).
  std::function<void(const std::string& path)> after_restore_file;
};

class LocalSnapshotStore : public SnapshotStore {
 public:
  LocalSnapshotStore(std::filesystem::path root, DirectoryVolumes& volumes, LocalStoreOptions options = {});

  SnapshotInfo create(const std::string& volume, const std::string& name, const std::string& job,
                      const std::map<std::string, std::string>& metadata) override;
  SnapshotInfo create_with_lineage(const std::string& volume, const std::string& name, const std::string& job,
                                   const std::map<std::string, std::string>& metadata,
                                   const LineageRecord& record) override;
  std::vector<SnapshotInfo> list(const std::optional<std::string>& volume) override;
  SnapshotInfo describe(const std::string& name) override;
  void remove(const std::string& name) override;
  VerifyReport verify(const std::string& name) override;
  void restore_to_new_volume(const std::string& name, const std::string& new_volume) override;
  RevertPlan plan_revert(const std::string& name, const std::string& volume) override;
  RevertPlan revert_in_place(const std::string& name, const std::string& volume) override;
  void record_lineage(const LineageRecord& record) override;
  std::optional<LineageRecord> lineage(const std::string& snapshot) override;
  std::vector<LineageRecord> all_lineage() override;

  // Local-only extras (tests, benchmarks, `lanectl snapshot describe`).
  Manifest manifest(const std::string& name);
  SweepResult collect_garbage();  // removes objects no snapshot references
  uint64_t object_count() const { return objects_.count(); }
  bool reflink_possible() const { return objects_.reflink_possible(); }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path manifest_path(const std::string& name) const;
  std::filesystem::path lineage_path(const std::string& name) const;
  std::filesystem::path index_path(const std::string& name) const;
  SnapshotInfo read_info(const std::string& name);
  std::optional<Manifest> latest_manifest_of(const std::string& volume);
  void publish_manifest(const Manifest& m);
  void check_publishable(const Manifest& m, const std::string& text) const;
  void materialize_tree(const Manifest& m, const std::filesystem::path& dest);
  std::filesystem::path make_staging(const std::string& what, const std::string& volume);
  SweepResult sweep_locked();
  SnapshotInfo create_impl(const std::string& volume, const std::string& name, const std::string& job,
                           const std::map<std::string, std::string>& metadata, const LineageRecord* job_lineage);

  std::filesystem::path root_;
  DirectoryVolumes& volumes_;
  LocalStoreOptions options_;
  ObjectStore objects_;
};

}  // namespace lane::storage::local
