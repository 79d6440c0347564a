#pragma once
// scnn-train predict: run a checkpoint on frames, write TuSimple submission json-lines and
// overlay PNGs (with ground truth and the metric's per-lane decisions when labels are given),
// report the time per image: the first image apart (it pays for the device's warm-up), the steady
// rate over the others. Unless --no-tensorboard, the first kMaxEventOverlays overlays also go to a
// TensorBoard event file in the output folder (images overlays/<name> at the checkpoint's step).
// No libtorch in this header.
#include <cstddef>
#include <filesystem>
#include <string>

#include "train/commands/verb_options.h"

namespace lane::train {

// Overlays in predict's event file: a test set's thousands of frames are not copied into it.
inline constexpr size_t kMaxEventOverlays = 24;

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
