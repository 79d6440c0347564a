#pragma once
// Shape of an SCNN network. Kept free of libtorch so that the CLI and the config code can
// use it without paying for <torch/torch.h>.
#include <string>

namespace lane::model {

struct ScnnConfig {
  int num_classes = 7;       // background + lane slots (7 = 6 slots, TuSimple "list6")
  int input_height = 368;    // multiple of 8; the existence FC size depends on it
  int input_width = 640;     // multiple of 8
  double width_mult = 1.0;   // channel multiplier: 1.0 = the published network
  // Whether the U pass updates row 0 and the L pass column 0 (ORIG / HH semantics).
  // false reproduces PAD / LD, which stop at index 1.
  bool update_first_slice = true;
  int scnn_kernel = 9;       // message-passing kernel width along the slice
  double dropout = 0.1;      // Dropout2d before the classifier (training only); 0 turns it off

  // Channels after scaling: max(4, round(c * width_mult)).
  int channels(int full) const;
  int scnn_channels() const { return channels(128); }
  // Input size of the first existence FC: C * floor(H/16) * floor(W/16).
  int exist_fc_inputs() const;
};

// "full" (width 1.0) or "small" (width 1/8, for CPU tests and demos). Throws lane::UsageError
// naming `field` for anything else.
ScnnConfig model_preset(const std::string& name, const std::string& field = "--model");

// Throws lane::UsageError when the sizes cannot form a network (not multiples of 8, C < 2, ...).
// The largest --input-height / --input-width.
inline constexpr int kMaxInputSide = 8192;

void validate(const ScnnConfig& config);

}  // namespace lane::model
