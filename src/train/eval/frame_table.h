#pragma once
// The per-frame table of `scnn-train eval --per-frame`: frames sorted worst first (lowest
// accuracy, then most misses, then most false positives), with the overlay file name that
// `scnn-train predict` writes for each frame.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/eval/tusimple_metric.h"

namespace lane::eval {

// Worst first; ties keep submission order.
std::vector<FrameResult> worst_first(std::vector<FrameResult> frames);

// predict's overlay name for a raw_file: '/' -> '_', extension .png.
std::string overlay_name(const std::string& raw_file);

// Text table: rank, accuracy, FP, FN, GT and predicted lane counts, raw_file, overlay name.
// `limit` > 0 keeps the first `limit` rows.
std::string format_frame_table(const std::vector<FrameResult>& sorted, size_t limit);

// The evaluation file (PredictLayout::kEvaluation) of a scored submission: {"metric": "tusimple",
// "accuracy", "fp", "fn", "frames", "rows": [{"raw_file", "overlay", "accuracy", "fp", "fn",
// "gt_lanes", "pred_lanes"}...]} with the rows worst first. `aggregate` is the official mean.
nlohmann::json evaluation_document(const std::vector<FrameResult>& sorted, const Metrics& aggregate);

// Writes evaluation_document beside the submission file `pred` (atomically); returns its path.
std::filesystem::path write_evaluation(const std::filesystem::path& pred, const std::vector<FrameResult>& sorted,
                                       const Metrics& aggregate);

}  // namespace lane::eval
