#include "train/trainer/scnn_loss.h"

namespace lane::train {
namespace F = torch::nn::functional;

ScnnLoss::ScnnLoss(int num_classes, double background_weight, double exist_weight)
    : class_weights_(torch::ones({num_classes})), exist_weight_(exist_weight) {
  class_weights_[0] = background_weight;
}

LossParts ScnnLoss::operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                               const torch::Tensor& exist_target) const {
  LossParts l;
  l.seg = F::cross_entropy(out.seg_logits, seg_target,
                           F::CrossEntropyFuncOptions().weight(class_weights_).ignore_index(255));
  l.exist = F::binary_cross_entropy_with_logits(out.exist_logits, exist_target);
  l.total = l.seg + exist_weight_ * l.exist;
  return l;
}

}  // namespace lane::train
