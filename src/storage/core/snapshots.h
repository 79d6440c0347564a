#pragma once
// Snapshots of volumes and the lineage that links them to jobs. Every backend implements
// SnapshotStore: the local backend with a content-addressed store (storage/local), Kubernetes
// with CSI VolumeSnapshots, Azure NetApp Files with ANF snapshots. Semantics follow ANF:
// snapshots are immutable, creation is all-or-nothing, "restore" makes a new volume and
// "revert" replaces a volume's data in place, losing the snapshots newer than the chosen one.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/progress.h"  // format_bytes, ProgressSink
#include "common/secrets.h"  // is_secret_env_name, mask_secret_env (JobRecord holds masked env)

namespace lane::storage {

// What a snapshot is and where it came from. Immutable once created.
struct SnapshotInfo {
  std::string name;              // DNS-1123 label, unique in the store
  std::string volume;            // the claim it was taken of
  std::string job;               // job that asked for it (empty = taken by a user)
  std::string ns = "default";    // namespace/project, as the seed log prints it
  int64_t created_unix_ms = 0;
  uint64_t file_count = 0;       // regular files
  uint64_t total_bytes = 0;      // logical size of the files
  uint64_t new_bytes = 0;        // bytes this snapshot added to the store (0 = fully shared)
  std::string content_digest;    // SHA-256 over the manifest entries: equal digests = equal contents
  // false: the store knows the snapshot's size only (a CSI snapshot's restoreSize), not its files,
  // what it added or its digest
  bool files_known = true;
  std::map<std::string, std::string> metadata;  // free-form labels (e.g. "reason": "end-of-training")
};

// Result of re-hashing every object a snapshot references.
struct VerifyReport {
  std::string snapshot;
  uint64_t objects_checked = 0;
  uint64_t bytes_checked = 0;
  std::vector<std::string> damaged;  // "path: reason" for each missing or corrupted object
  bool ok() const { return damaged.empty(); }
};

// What a revert did (or would do): the snapshots taken of the same volume after the chosen one.
struct RevertPlan {
  std::string snapshot;
  std::string volume;
  std::vector<std::string> newer_snapshots;  // ANF deletes these on revert; the local store keeps them
};

// --- lineage -------------------------------------------------------------------------------

// The job that produced a snapshot, as it was submitted. Secret env values are already masked.
struct JobRecord {
  std::string name;
  std::string ns = "default";
  std::string image;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;  // values of SECRET/PASSWORD/TOKEN/KEY/... names masked
  std::string code_version;                 // git revision / image digest when known
  nlohmann::json spec = nlohmann::json::object();  // the rest of the submitted spec
};

// One record per snapshot (stored under lineage/<snapshot>.json) linking job, input and output.
struct LineageRecord {
  std::string snapshot;
  std::string volume;
  std::optional<JobRecord> job;
  std::string parent_snapshot;   // the snapshot the volume was restored from, if any
  std::string parent_volume;     // the volume the job read its data from, if different
  std::string dataset_digest;    // content digest of the input data (the snapshot's, or the parent's)
  nlohmann::json final_metrics = nlohmann::json::object();  // last values the trainer wrote
  int64_t recorded_unix_ms = 0;
};

// --- the interface -------------------------------------------------------------------------

class SnapshotStore {
 public:
  virtual ~SnapshotStore() = default;

  // Takes a snapshot of `volume`. Throws UsageError for a bad/duplicate name, Error when the
  // volume is unknown or the copy fails; a failure leaves no visible snapshot.
  virtual SnapshotInfo create(const std::string& volume, const std::string& name,
                              const std::string& job,
                              const std::map<std::string, std::string>& metadata) = 0;

  // All snapshots, oldest first; only those of `volume` when given.
  virtual std::vector<SnapshotInfo> list(const std::optional<std::string>& volume) = 0;

  // Throws Error naming the snapshot when it does not exist.
  virtual SnapshotInfo describe(const std::string& name) = 0;

  // Deletes the snapshot and frees the data no other snapshot shares.
  virtual void remove(const std::string& name) = 0;

  virtual VerifyReport verify(const std::string& name) = 0;

  // Creates `new_volume` (must not exist) holding exactly the snapshot's contents.
  virtual void restore_to_new_volume(const std::string& name, const std::string& new_volume) = 0;

  // What revert_in_place would affect; changes nothing.
  virtual RevertPlan plan_revert(const std::string& name, const std::string& volume) = 0;

  // Replaces `volume`'s contents with the snapshot's. The snapshot must be of that volume.
  virtual RevertPlan revert_in_place(const std::string& name, const std::string& volume) = 0;

  // create() for a job: the snapshot and its lineage (`record`'s job, metrics and parent volume;
  // the store fills in snapshot, volume, parent snapshot and dataset digest) as one record where
  // the backend can, so a crash never leaves a snapshot whose job the lineage does not know.
  // The default creates, then records.
  virtual SnapshotInfo create_with_lineage(const std::string& volume, const std::string& name,
                                           const std::string& job,
                                           const std::map<std::string, std::string>& metadata,
                                           const LineageRecord& record);

  // Lineage records: written by whoever creates a snapshot on behalf of a job.
  virtual void record_lineage(const LineageRecord& record) = 0;
  virtual std::optional<LineageRecord> lineage(const std::string& snapshot) = 0;
  virtual std::vector<LineageRecord> all_lineage() = 0;

  // Where create, verify, restore_to_new_volume and revert_in_place report the bytes and files
  // they copy or check (nullptr: nowhere). The local store reports; stores whose copies the
  // cluster or the provider makes report nothing.
  void report_progress_to(ProgressSink* sink) { progress_ = sink; }

 protected:
  ProgressSink* progress_ = nullptr;
};

// --- helpers shared by all backends (snapshots.cpp) ---------------------------------------

// Snapshot names follow Kubernetes object names (VolumeSnapshot: DNS-1123 subdomain) without
// dots: 1-kMaxSnapshotName chars of [a-z0-9-], starting and ending with a letter or digit. No
// '/' and no '.', so a name can never escape the store's directories. The cap keeps
// "<name>.json" plus a temporary suffix under the 255-byte file-name limit.
constexpr size_t kMaxSnapshotName = 200;
bool is_snapshot_name(const std::string& name);
// Throws UsageError naming `field` and the rule unless is_snapshot_name(name).
void require_snapshot_name(const std::string& name, const std::string& field = "snapshot name");

// snap-<pvc>-<job>-launcher-<YYYY-MM-DD-HH-MM-SS> (UTC), as the seed's log shows; the pvc/job
// parts are trimmed only if the whole would exceed kMaxSnapshotName.
std::string training_snapshot_name(const std::string& pvc, const std::string& job, int64_t unix_ms);

// A default name for a user snapshot: <pvc>-<YYYYMMDD-HHMMSS>.
std::string default_snapshot_name(const std::string& pvc, int64_t unix_ms);

// Copies what a job adds to a snapshot's lineage (job, final metrics, parents when given) into `base`.
void merge_job_lineage(LineageRecord& base, const LineageRecord& from_job);

using lane::now_unix_ms;  // the one wall clock (common/clock.h), as storage's callers name it
using lane::format_bytes;  // 1.5 GiB, 12.0 KiB, 300 B (common/progress.h)
std::string format_utc(int64_t unix_ms);  // 2026-11-22T00:46:03Z

// JSON forms (for -o json|yaml and for the on-disk records).
nlohmann::json to_json(const SnapshotInfo& info);
SnapshotInfo snapshot_info_from_json(const nlohmann::json& j);
nlohmann::json to_json(const VerifyReport& report);
nlohmann::json to_json(const RevertPlan& plan);
nlohmann::json to_json(const JobRecord& job);
JobRecord job_record_from_json(const nlohmann::json& j);
nlohmann::json to_json(const LineageRecord& record);
LineageRecord lineage_record_from_json(const nlohmann::json& j);

}  // namespace lane::storage
