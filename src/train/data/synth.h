#pragma once
// Synthetic TuSimple: plausible 1280x720 road frames with perspective lanes and exact labels,
// written in the TuSimple layout (see docs/data.md "Synthetic data"). Deterministic for a seed.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "train/data/tusimple_labels.h"
#include "train/commands/verb_options.h"

namespace lane::data {

struct SynthFrame {
  cv::Mat image;     // 720x1280 BGR
  LaneLabel label;   // raw_file left empty
};

// Rows every label line samples: 160, 170, ..., 710.
std::vector<int> synth_h_samples();

// One frame from its own seed (independent of every other frame).
SynthFrame render_synth_frame(uint64_t frame_seed);

struct SynthSummary {
  int train = 0, val = 0, test = 0;
  std::vector<std::string> label_files;  // relative to out
};

// Writes clips/synth-<split>/<NNNNNN>/20.jpg, label_data_<split>.json and
// lists/list6_<split>.txt (list_test.txt for test) below options.out.
SynthSummary generate_synth_dataset(const SynthOptions& options);

}  // namespace lane::data
