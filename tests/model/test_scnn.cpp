// SCNN network: parameter counts against the reference arithmetic, output shapes, pretrained
// weight loading.
#include "catch_torch.h"

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "train/model/scnn.h"

using lane::model::Scnn;
using lane::model::ScnnConfig;

TEST_CASE("full SCNN has the reference parameter count at 368x640", "[model][slow]") {
  ScnnConfig c;  // C=7, 368x640: F = 7*23*40 = 6440, conv biases kept, no SCNN bias
  CHECK(c.exist_fc_inputs() == 6440);
  Scnn net(c);
  CHECK(net->parameter_count() == 20991053);
  c.num_classes = 5;
  CHECK(Scnn(c)->parameter_count() == 20755017);
}

TEST_CASE("full SCNN buffers: BN running statistics", "[model][slow]") {
  Scnn net(ScnnConfig{});
  int64_t floats = 0;
  for (const auto& b : net->buffers())
    if (b.scalar_type() == torch::kFloat32) floats += b.numel();
  CHECK(floats == 10752);  // 2 x (4224 + 1024 + 128)
}

TEST_CASE("small SCNN forward gives seg logits at input size and C-1 existence logits", "[model][fast]") {
  torch::manual_seed(0);
  auto c = lane::model::model_preset("small");
  c.input_height = 64;
  c.input_width = 128;
  Scnn net(c);
  CHECK(net->config().scnn_channels() == 16);
  auto out = net->forward(torch::randn({2, 3, 64, 128}));
  CHECK(out.seg_logits.sizes() == torch::IntArrayRef({2, 7, 64, 128}));
  CHECK(out.exist_logits.sizes() == torch::IntArrayRef({2, 6}));
  CHECK_THROWS_AS(net->forward(torch::randn({1, 3, 72, 128})), c10::Error);
}

TEST_CASE("model presets and invalid shapes are rejected with usage errors", "[model][fast]") {
  CHECK_THROWS_AS(lane::model::model_preset("huge"), lane::UsageError);
  ScnnConfig c;
  c.input_height = 100;  // not a multiple of 8
  CHECK_THROWS_AS(lane::model::validate(c), lane::UsageError);
  c = ScnnConfig{};
  c.num_classes = 1;
  CHECK_THROWS_AS(lane::model::validate(c), lane::UsageError);
}

TEST_CASE("SCNN message-passing init follows ORIG: std sqrt(2/(9*128*128*5))", "[model][fast]") {
  torch::manual_seed(1);
  Scnn net(ScnnConfig{});
  const double expected = std::sqrt(2.0 / (9.0 * 128 * 128 * 5));  // 0.001647
  const double got = net->message_passing()->conv_d->weight.std().item<double>();
  CHECK(got == Approx(expected).epsilon(0.02));
}

TEST_CASE("pretrained VGG16-BN weights load by torchvision index, mismatches are named", "[model][slow]") {
  torch::manual_seed(2);
  Scnn net(ScnnConfig{});
  // A state dict in torchvision's naming, written in the pickle format torch.save uses.
  c10::Dict<std::string, torch::Tensor> dict;
  for (auto& u : net->vgg_units()) {
    const std::string conv = "features." + std::to_string(u.torchvision_index) + ".";
    const std::string bn = "features." + std::to_string(u.torchvision_index + 1) + ".";
    dict.insert(conv + "weight", torch::full_like(u.conv->weight, 0.5));
    dict.insert(conv + "bias", torch::full_like(u.conv->bias, 0.25));
    dict.insert(bn + "weight", torch::full_like(u.bn->weight, 2.0));
    dict.insert(bn + "bias", torch::full_like(u.bn->bias, -1.0));
    dict.insert(bn + "running_mean", torch::full_like(u.bn->running_mean, 0.1));
    dict.insert(bn + "running_var", torch::full_like(u.bn->running_var, 3.0));
  }
  const auto dir = std::filesystem::temp_directory_path() / "lane_test_pretrained";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const c10::Dict<std::string, torch::Tensor>& d) {
    const auto bytes = torch::pickle_save(c10::IValue(d));
    std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return (dir / name).string();
  };
  lane::model::load_vgg16_bn_pretrained(net, write("good.pt", dict));
  auto& units = net->vgg_units();
  CHECK(units[10].torchvision_index == 34);  // conv5_1 after the removed pool4 (index 33)
  CHECK(units[10].conv->weight.eq(0.5).all().item<bool>());
  CHECK(units[12].bn->running_var.eq(3.0).all().item<bool>());
  CHECK(units[0].conv->bias.eq(0.25).all().item<bool>());

  auto bad = dict.copy();
  bad.insert_or_assign("features.34.weight", torch::zeros({3, 3}));
  try {
    lane::model::load_vgg16_bn_pretrained(net, write("bad.pt", bad));
    FAIL("mis-shaped weight accepted");
  } catch (const lane::UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains("34.weight"));
  }
  std::ofstream(dir / "junk.pt") << "not a pickle";
  CHECK_THROWS_AS(lane::model::load_vgg16_bn_pretrained(net, (dir / "junk.pt").string()), lane::UsageError);
  auto small = lane::model::model_preset("small");
  Scnn small_net(small);
  CHECK_THROWS_AS(lane::model::load_vgg16_bn_pretrained(small_net, write("good.pt", dict)), lane::UsageError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a channels-last SCNN computes what the contiguous one does, forward and gradients", "[model][fast]") {
  auto cfg = lane::model::model_preset("small", "--model");
  cfg.input_height = 32;
  cfg.input_width = 64;
  cfg.dropout = 0.0;
  torch::manual_seed(8);
  lane::model::Scnn a(cfg), b(cfg);
  {
    torch::NoGradGuard g;
    auto pa = a->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pa.size(); ++i) pb[i].copy_(pa[i]);
  }
  b->set_memory_format(at::MemoryFormat::ChannelsLast);
  b->message_passing()->layout = lane::model::SliceLayout::kChannelsLast;  // what CUDA picks
  for (const auto& p : b->parameters())
    if (p.dim() == 4) CHECK(p.is_contiguous(at::MemoryFormat::ChannelsLast));
  const auto x = torch::randn({2, 3, 32, 64});  // NCHW: forward lays it out
  const auto oa = a->forward(x), ob = b->forward(x);
  // The same function up to float32 rounding (the convolutions sum in another order): errors are
  // measured against the largest magnitude, since a conv bias before BatchNorm gets a gradient
  // that is rounding noise around zero.
  auto close = [](const torch::Tensor& x, const torch::Tensor& ref, double scale) {
    return (x - ref).abs().max().item<double>() <= 1e-4 * scale;
  };
  CHECK(close(ob.seg_logits, oa.seg_logits, oa.seg_logits.abs().max().item<double>()));
  CHECK(close(ob.exist_logits, oa.exist_logits, oa.exist_logits.abs().max().item<double>()));
  (oa.seg_logits.square().mean() + oa.exist_logits.square().mean()).backward();
  (ob.seg_logits.square().mean() + ob.exist_logits.square().mean()).backward();
  auto pa = a->named_parameters(), pb = b->named_parameters();
  double largest = 0;
  for (const auto& item : pa) largest = std::max(largest, item.value().grad().abs().max().item<double>());
  for (const auto& item : pa) {
    INFO(item.key());
    CHECK(close(pb[item.key()].grad(), item.value().grad(), largest));
  }
  b->set_memory_format(at::MemoryFormat::Contiguous);  // and back
  for (const auto& p : b->parameters()) CHECK(p.is_contiguous());
}

