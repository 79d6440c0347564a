#pragma once
// What the job page shows of a job's own output: the training curves of its metrics.jsonl
// (scnn-train's OUTPUT_DIR) and the overlay pictures of a predict run (`scnn-train predict --out
// DIR` writes DIR/overlays/*.png), read through the backend's JobFiles role. The pure parts
// (parsing, name checks, where to look) are here for the tests; the Api methods that use them
// are in job_outputs.cpp.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/job_files.h"
#include "submit/core/workload.h"

namespace lane::dashboard {

inline constexpr uint64_t kMaxMetricsBytes = 16u << 20;  // the last 16 MiB of metrics.jsonl
inline constexpr size_t kMaxPointsPerKind = 4000;        // more records are thinned evenly (the last kept)
inline constexpr uint64_t kMaxOverlayBytes = 8u << 20;   // one overlay image
inline constexpr size_t kMaxOverlays = 24;               // the newest ones listed

// metrics.jsonl (one JSON object per line, {"kind": "train"|"val", "step": N, key: number...})
// as columns per kind: {"train": {"step": [..], "loss": [..], "lr": [..]}, "val": {...}}, one
// entry per record in file order, null where a record lacks a key or its value is not a number.
// Lines that are not JSON objects (a torn last line, the partial first line of a tail read) are
// skipped; a record without "kind" is "metrics". With more than `max_points` records in a kind,
// every k-th is kept, and the last.
nlohmann::json metrics_columns(std::string_view jsonl, size_t max_points = kMaxPointsPerKind);

// The directories a job may have written predictions to: OUTPUT_DIR, then each `--out DIR` /
// `--out=DIR` of its command and args (also inside a `sh -c '...'` script), as clean absolute
// paths, without repeats. Relative or odd paths are left out.
std::vector<std::string> prediction_roots(const submit::JobSpec& spec, const std::string& output_dir);

// An overlay file name the API serves: letters, digits, '.', '_', '-', not starting with '.',
// at most 255 characters, ending in .png, .jpg or .jpeg (any case).
bool is_overlay_name(std::string_view name);

// "image/png" or "image/jpeg" from the first bytes (signature), "" for anything else.
std::string image_type(std::string_view data);

// ---- artifacts (api_artifacts.cpp) ----

inline constexpr uint64_t kMaxEvaluationBytes = 16u << 20;  // evaluation.json read at most
inline constexpr size_t kMaxArtifactsListed = 20000;         // files looked at in one directory

// What a file directly in a run or prediction directory is, for the artifacts list: "metrics"
// (metrics.jsonl), "checkpoint" (*.pt), "curves" (training_curves.png), "predictions"
// (predictions.json), "evaluation" (evaluation.json); "" for a file that is not listed. The name
// must also be an artifact name (is_artifact_name).
std::string artifact_kind(std::string_view name);

// A name the artifact download serves: letters, digits, '.', '_', '-', not starting with '.', at
// most 255 characters (so it needs no quoting in Content-Disposition).
bool is_artifact_name(std::string_view name);

// Whether `path` is a file the artifacts list may hold for a job whose prediction roots are
// `roots`: ROOT/NAME with artifact_kind(NAME), or ROOT/overlays/NAME with is_overlay_name(NAME).
bool is_artifact_path(const std::string& path, const std::vector<std::string>& roots);

// The Content-Type a download is sent with, from its name: application/x-ndjson (.jsonl),
// application/json, image/png, image/jpeg, else application/octet-stream.
std::string artifact_content_type(std::string_view name);

// evaluation.json (scnn-train eval, src/train/eval/frame_table.h) checked and reduced to what
// the page shows: {"accuracy", "fp", "fn", "frames", "rows": [{"raw_file", "overlay" (null when
// not an overlay name), "accuracy", "fp", "fn", "gt_lanes", "pred_lanes"}]} with the rows worst
// first (re-sorted: lowest accuracy, most misses, most false positives). Throws
// std::runtime_error naming what is wrong.
nlohmann::json evaluation_view(const nlohmann::json& doc);

// ROOT/evaluation.json of a job read and checked (evaluation_view); nullopt with `why` when there
// is none or it is not valid. Call with the backend lock held.
std::optional<nlohmann::json> read_evaluation(submit::JobFiles& files, const std::string& name,
                                              const std::string& project, const std::string& root, std::string& why);

// The overlay names of an evaluation_view's rows, worst first: the order the overlay panel uses.
std::vector<std::string> worst_overlays(const nlohmann::json& view);

// A path as the job gave it (OUTPUT_DIR=/mnt/runs/) as a clean absolute one, "" when it is not
// absolute or normalises to "/".
std::string clean_dir(const std::string& path);

}  // namespace lane::dashboard
