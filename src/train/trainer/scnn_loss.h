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
  // `device`: where the training targets live (the class weights are kept there, and a host
  // copy for seg_weight of the host copy of a target).
  ScnnLoss(int num_classes, double background_weight, double exist_weight,
           torch::Device device = torch::kCPU);

  // The device the loss was built for (where it expects the training targets).
  torch::Device device() const { return device_weights_.device(); }

  // Σ w_y over the pixels that count (label 255 ignored): the denominator of the weighted mean.
  torch::Tensor seg_weight(const torch::Tensor& seg_target) const;

  // seg = Σ w_y·l / seg_normaliser. One process passes seg_weight(target), which is PyTorch's
  // weighted mean. Data-parallel training passes the mean of seg_weight over the ranks: after
  // gradient averaging, N ranks with batch B then follow exactly the gradient of one rank with
  // batch N·B, which a per-rank mean does not (each batch has its own class balance).
  LossParts operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                       const torch::Tensor& exist_target, double seg_normaliser) const;
  // The same with the local normaliser (single process).
  LossParts operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                       const torch::Tensor& exist_target) const;

 private:
  // The weights on the host and on the training device (the same tensor on a CPU run).
  const torch::Tensor& weights_on(const torch::Device& device) const;
  torch::Tensor host_weights_, device_weights_;
  double exist_weight_;
};

}  // namespace lane::train
