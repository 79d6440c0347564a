// Loading ImageNet VGG16-BN weights from a user-provided file (never downloaded).
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include "common/error.h"
#include "common/error_text.h"
#include "train/model/scnn.h"

namespace lane::model {
namespace {

std::map<std::string, torch::Tensor> read_tensor_dict(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--pretrained: cannot read '{}'", path));
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format(
        "--pretrained: '{}' is not a torch.save() file of a state dict ({})", path, without_backtrace(e.what())));
  }
  if (!value.isGenericDict())
    throw UsageError(fmt::format("--pretrained: '{}' holds no dict of tensors", path));
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString() || !item.value().isTensor())
      throw UsageError(fmt::format("--pretrained: '{}' has a non name→tensor entry", path));
    std::string key = item.key().toStringRef();
    for (const std::string prefix : {"module.", "features."})
      if (key.rfind(prefix, 0) == 0) key = key.substr(prefix.size());
    out[key] = item.value().toTensor();
  }
  return out;
}

}  // namespace

void load_vgg16_bn_pretrained(Scnn& model, const std::string& path) {
  if (model->config().width_mult != 1.0)
    throw UsageError("--pretrained needs the full network (--model full); the ImageNet weights "
                     "do not fit a width-scaled backbone");
  const auto dict = read_tensor_dict(path);
  torch::NoGradGuard no_grad;
  auto copy = [&](const std::string& key, torch::Tensor& dst) {
    auto it = dict.find(key);
    if (it == dict.end())
      throw UsageError(fmt::format("--pretrained: '{}' lacks '{}' (expected torchvision "
                                   "vgg16_bn().features.state_dict())", path, key));
    if (it->second.sizes() != dst.sizes())
      throw UsageError(fmt::format("--pretrained: '{}' has shape {} for '{}', the model needs {}",
                                   path, fmt::join(it->second.sizes(), "x"), key,
                                   fmt::join(dst.sizes(), "x")));
    dst.copy_(it->second.to(dst.dtype()));
  };
  for (auto& u : model->vgg_units()) {
    const std::string conv = std::to_string(u.torchvision_index) + ".";
    const std::string bn = std::to_string(u.torchvision_index + 1) + ".";
    copy(conv + "weight", u.conv->weight);
    copy(conv + "bias", u.conv->bias);
    copy(bn + "weight", u.bn->weight);
    copy(bn + "bias", u.bn->bias);
    copy(bn + "running_mean", u.bn->running_mean);
    copy(bn + "running_var", u.bn->running_var);
  }
}

}  // namespace lane::model
