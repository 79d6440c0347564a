#pragma once
// A trained SCNN as a real TorchScript module (torch::jit::Module), loadable with
// torch.jit.load in Python or torch::jit::load in C++, with no code of this project.
//
// libtorch has no tracer or scripter for C++ torch::nn modules (torch.jit.trace/script are
// Python front ends). What the C++ API does have is torch::jit::Module::define(), which compiles
// TorchScript source. So the exporter registers every parameter and BatchNorm buffer of the
// network as an attribute of a new module and defines forward() in TorchScript, written out of
// the network's own layer list (convolutions with their padding and dilation, pooling, message
// passing, classifier, bilinear upsampling, existence branch) in eval mode.
// Includes libtorch: include only from trainer .cpp files and tests.
#include <filesystem>

#include <torch/script.h>

#include "train/model/scnn.h"

namespace lane::train {

// forward(x: [B, 3, H, W] normalised image) -> (seg_logits [B, C, H, W], exist_logits [B, C-1]),
// the eval-mode output of `net`. Attributes: input_height, input_width, num_classes, crop_top,
// mean_rgb, std_rgb (the input normalisation).
torch::jit::Module to_torchscript(model::Scnn& net, int crop_top);

}  // namespace lane::train
