#include "train/trainer/scnn_loss.h"

#include <fmt/format.h>

#include "common/error.h"

namespace lane::train {
namespace F = torch::nn::functional;

namespace {
constexpr int64_t kIgnoreLabel = 255;
}

ScnnLoss::ScnnLoss(int num_classes, double background_weight, double exist_weight, torch::Device device)
    : host_weights_(torch::ones({num_classes})), exist_weight_(exist_weight) {
  host_weights_[0] = background_weight;
  device_weights_ = host_weights_.to(device);
}

const torch::Tensor& ScnnLoss::weights_on(const torch::Device& device) const {
  if (device == device_weights_.device()) return device_weights_;
  if (device == host_weights_.device()) return host_weights_;
  throw Error(fmt::format("ScnnLoss: targets on {} but the loss was built for {}", device.str(),
                          device_weights_.device().str()));
}

torch::Tensor ScnnLoss::seg_weight(const torch::Tensor& seg_target) const {
  const auto counted = seg_target != kIgnoreLabel;
  // Ignored pixels look up class 0 and are then multiplied by 0.
  const auto classes = seg_target.masked_fill(~counted, 0).to(torch::kLong);
  return (weights_on(seg_target.device()).index({classes}) * counted).sum();
}

LossParts ScnnLoss::operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                               const torch::Tensor& exist_target, double seg_normaliser) const {
  if (!(seg_normaliser > 0)) throw Error("ScnnLoss: the batches have no labelled pixel (normaliser 0)");
  LossParts l;
  const auto weighted_sum = F::cross_entropy(
      out.seg_logits, seg_target,
      F::CrossEntropyFuncOptions().weight(weights_on(seg_target.device())).ignore_index(kIgnoreLabel).reduction(torch::kSum));
  l.seg = weighted_sum / seg_normaliser;
  // Every rank has the same batch size, so the mean over ranks of per-rank means is exact here.
  l.exist = F::binary_cross_entropy_with_logits(out.exist_logits, exist_target);
  l.total = l.seg + exist_weight_ * l.exist;
  return l;
}

LossParts ScnnLoss::operator()(const model::ScnnOutput& out, const torch::Tensor& seg_target,
                               const torch::Tensor& exist_target) const {
  return (*this)(out, seg_target, exist_target, seg_weight(seg_target).item<double>());
}

}  // namespace lane::train
