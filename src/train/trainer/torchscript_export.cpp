#include "train/trainer/torchscript_export.h"

#include <algorithm>
#include <map>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "train/data/frame_transform.h"

namespace lane::train {
namespace {

// Attribute name of a parameter or buffer: "scnn.conv_d.weight" -> "scnn_conv_d_weight".
std::string attr(std::string dotted) {
  std::replace(dotted.begin(), dotted.end(), '.', '_');
  return dotted;
}

std::string int_pair(const torch::ExpandingArray<2>& a) { return fmt::format("[{}, {}]", (*a)[0], (*a)[1]); }

std::string conv_call(const std::string& x, const std::string& name, const torch::nn::Conv2d& conv) {
  const auto& o = conv->options;
  // Unqualified, so that argument-dependent lookup picks c10::get_if (libtorch 1.x, c10::variant)
  // or std::get_if (2.x, std::variant).
  using std::get_if;
  const auto* padding = get_if<torch::ExpandingArray<2>>(&o.padding());
  TORCH_CHECK(padding != nullptr, "export: conv '", name, "' uses a padding mode TorchScript export does not handle");
  return fmt::format("torch.conv2d({}, self.{}_weight, {}, {}, {}, {}, {})", x, attr(name),
                     conv->bias.defined() ? "self." + attr(name) + "_bias" : "None", int_pair(o.stride()),
                     int_pair(*padding), int_pair(o.dilation()), o.groups());
}

std::string bn_relu(const std::string& x, const std::string& name, const torch::nn::BatchNorm2d& bn) {
  const std::string a = "self." + attr(name);
  return fmt::format("torch.relu(torch.batch_norm({}, {}_weight, {}_bias, {}_running_mean, {}_running_var, False, 0.1, "
                     "{}, False))",
                     x, a, a, a, a, bn->options.eps());
}

// Name of every submodule, keyed by its address ("conv1_1", "scnn.conv_d", ...).
std::map<const torch::nn::Module*, std::string> module_names(model::Scnn& net) {
  std::map<const torch::nn::Module*, std::string> names;
  for (const auto& item : net->named_modules("", /*include_self=*/false)) names[item.value().get()] = item.key();
  return names;
}

std::string script_source(model::Scnn& net) {
  const auto names = module_names(net);
  auto name_of = [&](const torch::nn::Module* m) { return names.at(m); };
  const auto& cfg = net->config();
  const int pad = cfg.scnn_kernel / 2;
  const int last = cfg.update_first_slice ? 0 : 1;

  std::string s;
  // Message passing, as MessagePassingImpl::recur: out[s] = in[s] + relu(conv1d(out[s-1])).
  s += "def recur(self, slices: Tensor, w: Tensor, reverse: bool) -> Tensor:\n"
       "    xs = slices.unbind(0)\n"
       "    n = len(xs)\n"
       "    out: List[Tensor] = []\n"
       "    for i in range(n):\n"
       "        out.append(xs[i])\n"
       "    if not reverse:\n"
       "        for i in range(1, n):\n";
  s += fmt::format("            out[i] = xs[i] + torch.relu(torch.conv1d(out[i - 1], w, None, [1], [{}], [1], 1))\n", pad);
  s += "    else:\n"
       "        i = n - 2\n";
  s += fmt::format("        while i >= {}:\n", last);
  s += fmt::format("            out[i] = xs[i] + torch.relu(torch.conv1d(out[i + 1], w, None, [1], [{}], [1], 1))\n", pad);
  s += "            i -= 1\n"
       "    return torch.stack(out, 0)\n\n";

  s += "def forward(self, image: Tensor) -> Tuple[Tensor, Tensor]:\n"
       "    x = image\n";
  for (auto& unit : net->vgg_units()) {
    s += fmt::format("    x = {}\n", bn_relu(conv_call("x", name_of(unit.conv.get()), unit.conv), name_of(unit.bn.get()), unit.bn));
    if (unit.pool_after) s += "    x = torch.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1], False)\n";
  }
  for (const char* layer : {"6", "7"}) {
    const auto conv = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(net->named_children()[std::string("fc") + layer]);
    const auto bn = std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(net->named_children()[std::string("bn") + layer]);
    TORCH_CHECK(conv && bn, "export: the network has no fc", layer, "/bn", layer);
    s += fmt::format("    x = {}\n", bn_relu(conv_call("x", std::string("fc") + layer, torch::nn::Conv2d(conv)),
                                             std::string("bn") + layer, torch::nn::BatchNorm2d(bn)));
  }
  // Message passing D, U (row slices), then R, L (column slices); same layouts as forward_fast.
  s += "    rows = x.permute([2, 0, 1, 3]).contiguous()\n"
       "    rows = self.recur(rows, self.scnn_conv_d_weight.flatten(2), False)\n"
       "    rows = self.recur(rows, self.scnn_conv_u_weight.flatten(2), True)\n"
       "    cols = rows.permute([3, 1, 2, 0]).contiguous()\n"
       "    cols = self.recur(cols, self.scnn_conv_r_weight.flatten(2), False)\n"
       "    cols = self.recur(cols, self.scnn_conv_l_weight.flatten(2), True)\n"
       "    x = cols.permute([1, 2, 3, 0]).contiguous()\n";
  // Dropout2d is the identity in eval mode.
  const auto fc8 = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(net->named_children()["fc8"]);
  TORCH_CHECK(fc8, "export: the network has no fc8");
  s += fmt::format("    logits = {}\n", conv_call("x", "fc8", torch::nn::Conv2d(fc8)));
  s += "    seg = torch.upsample_bilinear2d(logits, [image.size(2), image.size(3)], True, None, None)\n"
       "    e = torch.avg_pool2d(torch.softmax(logits, 1), [2, 2], [2, 2], [0, 0], False, True, None)\n"
       "    e = torch.relu(torch.linear(e.flatten(1), self.exist_fc1_weight, self.exist_fc1_bias))\n"
       "    exist = torch.linear(e, self.exist_fc2_weight, self.exist_fc2_bias)\n"
       "    return seg, exist\n";
  return s;
}

}  // namespace

torch::jit::Module to_torchscript(model::Scnn& net, int crop_top) {
  torch::NoGradGuard no_grad;
  torch::jit::Module m("ScnnLaneDetector");
  for (const auto& p : net->named_parameters(/*recurse=*/true))
    m.register_parameter(attr(p.key()), p.value().detach().clone(), /*is_buffer=*/false);
  for (const auto& b : net->named_buffers(/*recurse=*/true))
    if (b.key().find("num_batches_tracked") == std::string::npos) m.register_buffer(attr(b.key()), b.value().detach().clone());
  const auto& cfg = net->config();
  m.register_attribute("input_height", c10::IntType::get(), int64_t{cfg.input_height});
  m.register_attribute("input_width", c10::IntType::get(), int64_t{cfg.input_width});
  m.register_attribute("num_classes", c10::IntType::get(), int64_t{cfg.num_classes});
  m.register_attribute("crop_top", c10::IntType::get(), int64_t{crop_top});
  m.register_buffer("mean_rgb", torch::tensor(std::vector<float>(data::kMeanRgb.begin(), data::kMeanRgb.end())));
  m.register_buffer("std_rgb", torch::tensor(std::vector<float>(data::kStdRgb.begin(), data::kStdRgb.end())));
  m.define(script_source(net));
  m.eval();
  return m;
}

}  // namespace lane::train
