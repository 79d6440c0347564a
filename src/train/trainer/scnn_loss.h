#pragma once
// SCNN training loss: weighted cross-entropy over the C classes (background weight 0.4, label
// 255 ignored, PyTorch "mean" = Σ w_y·l / Σ w_y) + 0.1 × BCE-with-logits of the lane existence.
// Includes libtorch: include only from trainer .cpp files.
#include <torch/torch.h>

#include "train/model/scnn.h"

namespace lane::train {

struct LossParts {
  torch::Tensor total, seg, exist;
};

class ScnnLoss {
 public:
  ScnnLoss(int num_classes, double background_weight, double exist_weight);
  LossParts operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                       const torch::Tensor& exist_target) const;

 private:
  torch::Tensor class_weights_;
  double exist_weight_;
};

}  // namespace lane::train
