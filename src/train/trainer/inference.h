#pragma once
// From network output to TuSimple lanes, and validation with the official metric.
// Includes libtorch: include only from trainer .cpp files.
#include <vector>

#include <torch/torch.h>

#include "train/data/tensors/loader.h"
#include "train/dist/communicator.h"
#include "train/eval/postprocess.h"
#include "train/eval/tusimple_metric.h"
#include "train/model/scnn.h"

namespace lane::train {

// Post-processing options for a network input size. The 9×9 box blur of the recipe is meant for
// 640/800-wide maps; it is scaled with the input width (odd, at least 1) so that small demo
// inputs are not blurred over several lane widths. `crop_top` counts rows of a 720-row frame
// (the training setting); the options are for a frame of `frame` size.
eval::PostprocessOptions postprocess_options(const model::ScnnConfig& model, int crop_top, cv::Size frame);

// Host tensors, whatever device the network ran on: the lane decoding reads them on the CPU.
struct LaneProbabilities {
  torch::Tensor seg;    // softmax over classes, [B, C, H, W]
  torch::Tensor exist;  // sigmoid, [B, C-1]
};
// Softmax and sigmoid on the output's device; only the probabilities are copied to the host.
LaneProbabilities to_probabilities(const model::ScnnOutput& out);

// Lanes of image i, in original-frame pixels at options.h_samples.
std::vector<std::vector<double>> lanes_for_image(const LaneProbabilities& probs, int64_t i,
                                                 const eval::PostprocessOptions& options);

// Runs the model (eval mode, no grad) over one pass of the loader and scores it with the
// TuSimple metric against the batches' labels. Under MPI each rank scores its shard and the
// frame-weighted means are combined, so every rank returns the same numbers.
eval::Metrics validate(model::Scnn& net, data::TusimpleLoader& loader, int crop_top, dist::Communicator& comm);

}  // namespace lane::train
