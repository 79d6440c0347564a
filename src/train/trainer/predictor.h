#pragma once
// scnn-train predict: run a checkpoint on frames, write TuSimple submission json-lines and
// overlay PNGs (with ground truth and the metric's per-lane decisions when labels are given),
// report the time per image: the first image apart (it pays for the device's warm-up), the steady
// rate over the others. Unless --no-tensorboard, the first kMaxEventOverlays overlays also go to a
// TensorBoard event file in the output folder (images overlays/<name> at the checkpoint's step).
// No libtorch in this header.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace lane::train {

// Overlays in predict's event file: a test set's thousands of frames are not copied into it.
inline constexpr size_t kMaxEventOverlays = 24;

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
  bool tensorboard = true;          // the overlays' TensorBoard event file (--no-tensorboard: none)
};

// Network + post-processing time per image. The first image pays for the warm-up (on a GPU the
// CUDA context, cuDNN's autotuning, the first allocations: seconds, against milliseconds after
// it), so it is kept apart and the steady mean is over the others.
struct PredictTiming {
  size_t images = 0;
  double first_ms = 0;
  double steady_ms = 0;  // the mean over images 2..n; 0 with fewer than two

  void add(double ms);
  // "7.9 ms per image after a 3675.1 ms first image", or "12.3 ms for its only image".
  std::string describe() const;
};

struct PredictSummary {
  size_t images = 0;
  size_t labelled = 0;  // images that had a line in --labels
  PredictTiming timing;
  std::filesystem::path predictions;
};

PredictSummary run_predict(const PredictOptions& options);

}  // namespace lane::train
