#include "train/model/scnn.h"

#include <cmath>

namespace lane::model {
namespace F = torch::nn::functional;

namespace {

// VGG16 feature layers that SCNN keeps: (output channels, dilation, pool after).
struct UnitSpec {
  int channels;
  int dilation;
  bool pool_after;
};
const UnitSpec kVgg16[] = {
    {64, 1, false},  {64, 1, true},                                  // conv1
    {128, 1, false}, {128, 1, true},                                 // conv2
    {256, 1, false}, {256, 1, false}, {256, 1, true},                // conv3
    {512, 1, false}, {512, 1, false}, {512, 1, false},               // conv4 (pool4 removed)
    {512, 2, false}, {512, 2, false}, {512, 2, false},               // conv5 dilated (pool5 removed)
};

}  // namespace

ScnnImpl::ScnnImpl(const ScnnConfig& config) : config_(config) {
  validate(config_);
  const auto& c = config_;
  int in = 3;
  int tv_index = 0;  // position in torchvision's vgg16_bn().features
  int unit_no = 0;
  int block = 1, in_block = 0;
  for (const auto& spec : kVgg16) {
    const int out = c.channels(spec.channels);
    auto opts = torch::nn::Conv2dOptions(in, out, 3).padding(spec.dilation).dilation(spec.dilation).bias(true);
    VggUnit unit{tv_index, nullptr, nullptr, spec.pool_after};
    const std::string name = std::to_string(block) + "_" + std::to_string(++in_block);  // "1_1" .. "5_3"
    unit.conv = register_module("conv" + name, torch::nn::Conv2d(opts));
    unit.bn = register_module("bn" + name, torch::nn::BatchNorm2d(out));
    vgg_.push_back(unit);
    tv_index += 3;                 // conv, bn, relu
    if (spec.pool_after) ++tv_index;
    if (unit_no == 9) ++tv_index;  // the removed pool4 still occupies index 33 in torchvision
    if (spec.pool_after || unit_no == 9) ++block, in_block = 0;
    in = out;
    ++unit_no;
  }
  const int c6 = c.channels(1024), c7 = c.scnn_channels();
  fc6 = register_module("fc6", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, c6, 3).padding(4).dilation(4).bias(false)));
  bn6 = register_module("bn6", torch::nn::BatchNorm2d(c6));
  fc7 = register_module("fc7", torch::nn::Conv2d(torch::nn::Conv2dOptions(c6, c7, 1).bias(false)));
  bn7 = register_module("bn7", torch::nn::BatchNorm2d(c7));
  scnn_ = register_module("scnn", MessagePassing(c7, c.scnn_kernel, c.update_first_slice));
  dropout = register_module("dropout", torch::nn::Dropout2d(c.dropout));
  fc8 = register_module("fc8", torch::nn::Conv2d(torch::nn::Conv2dOptions(c7, c.num_classes, 1).bias(true)));
  exist_fc1 = register_module("exist_fc1", torch::nn::Linear(c.exist_fc_inputs(), 128));
  exist_fc2 = register_module("exist_fc2", torch::nn::Linear(128, c.num_classes - 1));
  init_weights();
}

void ScnnImpl::init_weights() {
  torch::NoGradGuard no_grad;
  auto kaiming = [](torch::nn::Conv2d& conv) {
    torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    if (conv->bias.defined()) conv->bias.zero_();
  };
  auto unit_bn = [](torch::nn::BatchNorm2d& bn) {
    bn->weight.fill_(1.0);
    bn->bias.zero_();
  };
  for (auto& u : vgg_) {
    kaiming(u.conv);
    unit_bn(u.bn);
  }
  kaiming(fc6);
  kaiming(fc7);
  kaiming(fc8);
  unit_bn(bn6);
  unit_bn(bn7);
  // ORIG SCNN-gen.lua: normal(0, sqrt(2 / (k · dim · dim · 5))), 0.001647 at full width.
  const double dim = config_.scnn_channels();
  const double std = std::sqrt(2.0 / (config_.scnn_kernel * dim * dim * 5.0));
  for (auto* conv : {&scnn_->conv_d, &scnn_->conv_u, &scnn_->conv_r, &scnn_->conv_l})
    (*conv)->weight.normal_(0.0, std);
  for (auto* fc : {&exist_fc1, &exist_fc2}) {
    (*fc)->weight.normal_(0.0, 0.01);
    (*fc)->bias.zero_();
  }
}

void ScnnImpl::set_batch_norm_frozen(bool frozen) {
  bn_frozen_ = frozen;
  train(is_training());
}

void ScnnImpl::train(bool on) {
  torch::nn::Module::train(on);
  if (!on || !bn_frozen_) return;
  for (auto& m : modules(/*include_self=*/false))
    if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) bn->eval();
}

void ScnnImpl::set_memory_format(at::MemoryFormat format) {
  torch::NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.dim() == 4 && !p.is_contiguous(format)) p.set_data(p.data().contiguous(format));
  memory_format_ = format;
}

ScnnOutput ScnnImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == 3, "SCNN expects [B, 3, H, W] images");
  TORCH_CHECK(images.size(2) == config_.input_height && images.size(3) == config_.input_width,
              "SCNN built for ", config_.input_height, "x", config_.input_width, " input, got ",
              images.size(2), "x", images.size(3));
  torch::Tensor x = images.contiguous(memory_format_);
  for (auto& u : vgg_) {
    x = torch::relu(u.bn->forward(u.conv->forward(x)));
    if (u.pool_after) x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
  }
  x = torch::relu(bn6->forward(fc6->forward(x)));
  x = torch::relu(bn7->forward(fc7->forward(x)));
  x = scnn_->forward(x);
  x = dropout->forward(x);
  const torch::Tensor logits = fc8->forward(x);  // [B, C, H/8, W/8]

  ScnnOutput out;
  out.seg_logits = F::interpolate(logits, F::InterpolateFuncOptions()
                                              .size(std::vector<int64_t>{images.size(2), images.size(3)})
                                              .mode(torch::kBilinear)
                                              .align_corners(true));
  auto e = F::avg_pool2d(torch::softmax(logits, 1), F::AvgPool2dFuncOptions(2).stride(2));
  e = torch::relu(exist_fc1->forward(e.flatten(1)));
  out.exist_logits = exist_fc2->forward(e);
  return out;
}

int64_t ScnnImpl::parameter_count() const {
  int64_t n = 0;
  for (const auto& p : parameters())
    if (p.requires_grad()) n += p.numel();
  return n;
}

}  // namespace lane::model
