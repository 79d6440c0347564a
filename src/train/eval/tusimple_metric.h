#pragma once
// The official TuSimple lane metric (TuSimple/tusimple-benchmark evaluate/lane.py, HEAD
// 365c4cd), reimplemented exactly: angle-adjusted 20 px threshold, strict <, every negative x
// read as -100, per-lane accuracy over all h_samples, 0.85 point ratio, no one-to-one matching
// (so fp may be negative), the "more than 4 GT lanes" rules, and run_time > 200 ms or more than
// len(gt)+2 predicted lanes scoring (0, 0, 1). Malformed submissions throw lane::UsageError.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/data/tusimple_labels.h"

namespace lane::eval {

// One line of a submission file: {"raw_file", "lanes", "run_time"} (h_samples is ignored).
struct PredictionLine {
  std::string raw_file;
  std::vector<std::vector<double>> lanes;
  double run_time_ms = 0;
};

struct FrameScore {
  double accuracy = 0, fp = 0, fn = 0;
};

// Means over the ground-truth frames.
struct Metrics {
  double accuracy = 0, fp = 0, fn = 0;
  size_t frames = 0;
  // [{"name":"Accuracy","value":..,"order":"desc"},{"name":"FP",..,"order":"asc"},{"name":"FN",..,"order":"asc"}]
  nlohmann::json to_official_json() const;
};

// lane.py LaneEval.bench for one frame. Throws lane::UsageError("Format of lanes error ...")
// when a predicted lane's length differs from y_samples.
FrameScore score_frame(const std::vector<std::vector<double>>& pred, const std::vector<std::vector<int>>& gt,
                       const std::vector<int>& y_samples, double run_time_ms);

// lane.py bench_one_submit: one prediction per GT line (same count), matched by raw_file.
Metrics evaluate(const std::vector<PredictionLine>& predictions, const std::vector<data::LaneLabel>& ground_truth);

// Reads a JSON-lines submission; every line needs raw_file, lanes and run_time.
// Errors name file:line and the missing or malformed field.
std::vector<PredictionLine> load_predictions(const std::filesystem::path& path);

// load_predictions + data::load_label_file + evaluate, with file names in error messages.
Metrics evaluate_files(const std::filesystem::path& pred, const std::filesystem::path& gt);

}  // namespace lane::eval
