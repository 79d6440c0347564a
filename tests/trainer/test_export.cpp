// scnn-train export: the TorchScript file, loaded back with torch::jit::load (what Python's
// torch.jit.load reads), gives the checkpoint's outputs; a corrupted weight would not.
#include "catch_torch.h"

#include <torch/script.h>

#include "train/trainer/checkpoint.h"
#include "train/trainer/model_export.h"
#include "train/trainer/torchscript_export.h"
#include "trainer_test_util.h"

using namespace lane;

namespace {

model::Scnn trained_looking_net(const model::ScnnConfig& cfg) {
  torch::manual_seed(3);
  model::Scnn net(cfg);
  torch::NoGradGuard no_grad;
  // Non-trivial BN statistics and message-passing weights, so that eval-mode BN and the
  // recurrence both matter for the outputs.
  for (auto& item : net->named_buffers()) {
    if (item.key().find("running_mean") != std::string::npos) item.value().normal_(0.0, 0.2);
    if (item.key().find("running_var") != std::string::npos) item.value().uniform_(0.5, 2.0);
  }
  for (auto& item : net->named_parameters())
    if (item.key().rfind("scnn.", 0) == 0) item.value().normal_(0.0, 0.05);
  return net;
}

}  // namespace

TEST_CASE("export: the TorchScript module reproduces the checkpoint's outputs", "[trainer][fast]") {
  test::ScratchDir dir("export");
  auto cfg = model::model_preset("small");
  cfg.input_height = 48;
  cfg.input_width = 96;
  model::Scnn net = trained_looking_net(cfg);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
  train::save_checkpoint(dir.path / "ckpt.pt", net, opt, train::TrainingProgress{}, {cfg, 24});

  const auto summary = train::run_export({dir.path / "ckpt.pt", dir.path / "model.torchscript.pt"});
  CHECK(summary.max_abs_diff_seg <= 1e-4);
  CHECK(std::filesystem::exists(dir.path / "model.torchscript.pt"));

  // An independent check on another input, with the network rebuilt from the checkpoint.
  model::Scnn restored(cfg);
  train::load_checkpoint(dir.path / "ckpt.pt", restored, nullptr);
  restored->eval();
  torch::jit::Module ts = torch::jit::load((dir.path / "model.torchscript.pt").string());
  ts.eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::rand({3, 3, 48, 96}) * 4 - 2;
  const auto want = restored->forward(x);
  const auto got = ts.forward({x}).toTuple();
  const auto seg = got->elements()[0].toTensor(), exist = got->elements()[1].toTensor();
  REQUIRE(seg.sizes() == want.seg_logits.sizes());
  REQUIRE(exist.sizes() == want.exist_logits.sizes());
  CHECK(torch::allclose(seg, want.seg_logits, 1e-5, 1e-5));
  CHECK(torch::allclose(exist, want.exist_logits, 1e-5, 1e-5));
  CHECK(ts.attr("input_height").toInt() == 48);
  CHECK(ts.attr("input_width").toInt() == 96);
  CHECK(ts.attr("crop_top").toInt() == 24);
  CHECK(ts.attr("num_classes").toInt() == 7);

  // The comparison can fail: a module built from a different network does not match.
  model::Scnn other(cfg);
  auto other_ts = train::to_torchscript(other, 0);
  const auto other_out = other_ts.forward({x}).toTuple()->elements()[0].toTensor();
  CHECK_FALSE(torch::allclose(other_out, want.seg_logits, 1e-3, 1e-3));
}

TEST_CASE("export: PAD-style message passing (--scnn-edge pad) is exported as trained", "[trainer][fast]") {
  auto cfg = model::model_preset("small");
  cfg.input_height = 32;
  cfg.input_width = 64;
  cfg.update_first_slice = false;
  model::Scnn net = trained_looking_net(cfg);
  net->eval();
  torch::NoGradGuard no_grad;
  auto ts = train::to_torchscript(net, 0);
  const auto x = torch::randn({2, 3, 32, 64});
  CHECK(torch::allclose(ts.forward({x}).toTuple()->elements()[0].toTensor(), net->forward(x).seg_logits, 1e-5, 1e-5));
}
