#pragma once
// The SCNN network (VGG16-BN DeepLab-LargeFOV backbone + spatial message passing), as in
// docs/training.md: pool4/pool5 removed, conv5 dilated by 2, fc6 (3×3, dilation 4) and fc7
// (1×1) to 128 channels, message passing D-U-R-L, Dropout2d(0.1), 1×1 classifier, bilinear ×8
// upsampling (align_corners=true) and an existence branch. This header pulls in libtorch:
// include it only from model, trainer, bench and test code.
#include <string>
#include <vector>

#include <torch/torch.h>

#include "train/model/message_passing.h"
#include "train/config/scnn_config.h"

namespace lane::model {

struct ScnnOutput {
  torch::Tensor seg_logits;    // [B, C, H, W] at input resolution
  torch::Tensor exist_logits;  // [B, C-1]; sigmoid gives the lane-existence probabilities
};

// One VGG "convX_Y + BN + ReLU" unit. `torchvision_index` is the position of the conv in
// torchvision's vgg16_bn().features (used to map pretrained weights).
struct VggUnit {
  int torchvision_index;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  bool pool_after;  // 2×2 max-pool after this unit (pool1..pool3 only)
};

class ScnnImpl : public torch::nn::Module {
 public:
  explicit ScnnImpl(const ScnnConfig& config);

  ScnnOutput forward(const torch::Tensor& images);  // images: [B, 3, H, W], normalised

  const ScnnConfig& config() const { return config_; }
  std::vector<VggUnit>& vgg_units() { return vgg_; }
  MessagePassing& message_passing() { return scnn_; }

  // Number of trainable parameters.
  int64_t parameter_count() const;

  // Frozen BatchNorm: in training mode every BN layer still normalises with (and keeps) its
  // running statistics, as in eval mode; γ and β keep learning. Batch statistics are per rank
  // in data-parallel training, so only frozen BN makes N ranks × batch B train exactly like
  // one rank × batch N·B (and small per-rank batches stop being noisy).
  void set_batch_norm_frozen(bool frozen);
  void train(bool on = true) override;

  // The layout of the 4-D weights and of the input as forward() takes it: ChannelsLast (NHWC)
  // runs a GPU's convolutions, BatchNorm and pooling without layout conversions; Contiguous
  // (NCHW, the default) suits the CPU. Values are unchanged; applying it again re-lays out weights
  // that a checkpoint load brought in another layout.
  void set_memory_format(at::MemoryFormat format);
  at::MemoryFormat memory_format() const { return memory_format_; }

 private:
  void init_weights();

  ScnnConfig config_;
  bool bn_frozen_ = false;
  at::MemoryFormat memory_format_ = at::MemoryFormat::Contiguous;
  std::vector<VggUnit> vgg_;
  torch::nn::Conv2d fc6{nullptr}, fc7{nullptr}, fc8{nullptr};
  torch::nn::BatchNorm2d bn6{nullptr}, bn7{nullptr};
  MessagePassing scnn_{nullptr};
  torch::nn::Dropout2d dropout{nullptr};
  torch::nn::Linear exist_fc1{nullptr}, exist_fc2{nullptr};
};
TORCH_MODULE(Scnn);

// Copies ImageNet-pretrained VGG16-BN feature weights into the backbone. The file is a
// pickled dict name → tensor as written by Python
//   torch.save(torchvision.models.vgg16_bn(weights="IMAGENET1K_V1").features.state_dict(), f)
// (keys "N.weight", "N.bias", "N.running_mean", ...; a "features." prefix is accepted).
// Throws lane::UsageError naming the path and the first missing or mis-shaped key.
void load_vgg16_bn_pretrained(Scnn& model, const std::string& path);

}  // namespace lane::model
