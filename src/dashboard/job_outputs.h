#pragma once
// What the job page shows of a job's own output: the training curves of its metrics.jsonl
// (scnn-train's OUTPUT_DIR) and the overlay pictures of a predict run (`scnn-train predict --out
// DIR` writes DIR/overlays/*.png), read through the backend's JobFiles role. The pure parts
// (parsing, name checks, where to look) are here for the tests; the Api methods that use them
// are in job_outputs.cpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

// A path as the job gave it (OUTPUT_DIR=/mnt/runs/) as a clean absolute one, "" when it is not
// absolute or normalises to "/".
std::string clean_dir(const std::string& path);

}  // namespace lane::dashboard
