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

// How score_frame decided one frame, lane by lane (for overlays and per-frame reports).
struct FrameMatch {
  FrameScore score;
  bool rejected = false;               // run_time > 200 ms or too many predicted lanes: (0, 0, 1)
  std::vector<int> gt_best_pred;       // per GT lane: index of its best predicted lane, -1 if none
  std::vector<double> gt_accuracy;     // per GT lane: point ratio of that best predicted lane
  std::vector<bool> gt_matched;        // per GT lane: ratio >= 0.85
  std::vector<bool> pred_matched;      // per predicted lane: the best match of some matched GT lane
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

// score_frame with the per-lane decisions behind it (the same computation).
FrameMatch match_frame(const std::vector<std::vector<double>>& pred, const std::vector<std::vector<int>>& gt,
                       const std::vector<int>& y_samples, double run_time_ms);

// One scored frame of a submission, in ground-truth order.
struct FrameResult {
  std::string raw_file;
  size_t gt_lanes = 0, pred_lanes = 0;
  FrameScore score;
};

// lane.py bench_one_submit, frame by frame; evaluate() is the mean of these over the frames.
std::vector<FrameResult> evaluate_frames(const std::vector<PredictionLine>& predictions,
                                         const std::vector<data::LaneLabel>& ground_truth);
std::vector<FrameResult> evaluate_frames_files(const std::filesystem::path& pred, const std::filesystem::path& gt);

// Means of per-frame results, as lane.py divides by the number of GT frames.
Metrics mean_of(const std::vector<FrameResult>& frames);

// lane.py bench_one_submit: one prediction per GT line (same count), matched by raw_file.
Metrics evaluate(const std::vector<PredictionLine>& predictions, const std::vector<data::LaneLabel>& ground_truth);

// Reads a JSON-lines submission; every line needs raw_file, lanes and run_time.
// Errors name file:line and the missing or malformed field.
std::vector<PredictionLine> load_predictions(const std::filesystem::path& path);

// load_predictions + data::load_label_file + evaluate, with file names in error messages.
Metrics evaluate_files(const std::filesystem::path& pred, const std::filesystem::path& gt);

}  // namespace lane::eval
