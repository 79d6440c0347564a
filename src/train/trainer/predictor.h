#pragma once
// scnn-train predict: run a checkpoint on frames, write TuSimple submission json-lines and
// overlay PNGs (with ground truth and the metric's per-lane decisions when labels are given),
// report the time per image. No libtorch in this header.
#include <filesystem>
#include <optional>
#include <string>

namespace lane::train {

struct PredictOptions {
  std::filesystem::path checkpoint;
  std::filesystem::path input;     // one image, or a folder searched recursively for .jpg/.png
  std::filesystem::path out_dir;   // predictions.json + overlays/
  std::filesystem::path raw_root;  // raw_file is relative to this; default: the input folder
  std::filesystem::path labels;    // optional TuSimple label file: overlays show GT and matches
  int threads = 0;                 // 0: OMP_NUM_THREADS or libtorch's default
  std::string device = "auto";     // auto|cpu|cuda|cuda:N, as scnn-train train --device
  std::string device_source = "--device";  // the flag or variable it came from, for errors
  // Post-processing overrides (< 0: the values validation uses, see inference.cpp).
  double prob_threshold = -1, exist_threshold = -1;
  int fill_gaps = -1;  // 0/1 overrides PostprocessOptions::fill_gaps
  double relative_threshold = -1;
  int lane_fit = -1;         // >= 0 overrides PostprocessOptions::lane_fit.degree (0 = off)
  int lane_fit_extend = -1;  // >= 0 overrides PostprocessOptions::lane_fit.extend_rows
  int border_columns = -1;   // >= 0 overrides PostprocessOptions::border_columns
  std::optional<int> max_gap_rows;  // overrides PostprocessOptions::max_gap_rows (-1 = no limit)
};

struct PredictSummary {
  size_t images = 0;
  size_t labelled = 0;  // images that had a line in --labels
  double mean_ms = 0;  // network + post-processing per image
  std::filesystem::path predictions;
};

PredictSummary run_predict(const PredictOptions& options);

}  // namespace lane::train
