#pragma once
// The end-of-training snapshot of the seed workflow: with ENABLE_SNAPSHOT=true and
// PVC_NAME=<claim>, rank 0 snapshots the claim (dataset + trained model) once the final
// checkpoint and metrics are written, logs "Snapshot <name> created in namespace <ns>", and
// records lineage linking the job, the snapshot, its input data and the final metrics.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"
#include "submit/core/workload.h"

namespace lane::submit {

struct TrainingSnapshotRequest {
  std::string pvc;                    // PVC_NAME
  std::string job;                    // LANECTL_JOB_NAME (the Run:AI job)
  std::string project = "default";    // LANECTL_PROJECT; the namespace is runai-<project>
  std::filesystem::path output_dir;   // OUTPUT_DIR as the trainer sees it (metrics, checkpoints)
  std::string code_version;           // the trainer's git revision
  // Set when someone else (the job) controls the output tree, i.e. the root supervisor answering
  // the job API: a trusted host directory (the claim's, or the job's root) and OUTPUT_DIR
  // relative to it. The outputs are then read beneath it, never following a link
  // (common/beneath.h), and output_dir is only the job's name for it.
  std::filesystem::path output_root;
  std::string output_beneath;
};

// ENABLE_SNAPSHOT (true/1/yes, case-insensitive) and PVC_NAME from the environment, plus the
// job identity the backend passes in (LANECTL_JOB_NAME, LANECTL_PROJECT). nullopt when
// snapshots are off; UsageError when they are on but PVC_NAME is missing or invalid.
std::optional<TrainingSnapshotRequest> training_snapshot_request_from_env(
    const std::filesystem::path& output_dir, const std::string& code_version);

// The last value of every key in the request's <output_dir>/metrics.jsonl, grouped by "kind"
// ({"train": {"loss": .., "step": ..}, "val": {...}}). Empty object when nothing is there.
// Only a regular file is read, and only its last kMaxMetricsBytes; with an output_root, it is
// opened beneath it without following links (lane::Error when a link or '..' is in the way).
inline constexpr uint64_t kMaxMetricsBytes = 16u << 20;
nlohmann::json read_final_metrics(const TrainingSnapshotRequest& request);
// The same for the caller's own outputs (no output_root).
nlohmann::json read_final_metrics(const std::filesystem::path& output_dir);

// The job as lineage records it: image, command, env (secrets masked), code version.
storage::JobRecord job_record_from_spec(const JobSpec& spec, const std::string& code_version);

struct TrainingSnapshotResult {
  std::string snapshot;
  std::string ns;
};

// Takes the snapshot through `store` and records its lineage. `job_spec` is the submitted
// job when the backend knows it (used for the lineage and to map OUTPUT_DIR into the volume).
TrainingSnapshotResult snapshot_after_training(storage::SnapshotStore& store, storage::Volumes& volumes,
                                               const TrainingSnapshotRequest& request,
                                               const std::optional<JobSpec>& job_spec,
                                               std::ostream& log);

}  // namespace lane::submit
