// GPU tests: device placement, NCCL gradient averaging against the CPU mathematics, bf16/fp16
// training on the real frames, and resume across devices. Each case needs visible GPUs and a
// CUDA build; without them it says why with LANE_SKIP_CASE (ctest: Skipped).
#include "catch_torch.h"

#include <cstdlib>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../trainer/trainer_test_util.h"
#include "support/skip_case.h"
#include "train/data/tensors/device_loader.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/trainer.h"

using namespace lane;
namespace fs = std::filesystem;

namespace {

// Why a case that needs `n` visible GPUs cannot run here; empty when it can.
std::string missing_gpus(int n) {
  const int have = train::build_has_cuda() ? static_cast<int>(torch::cuda::device_count()) : 0;
  if (have >= n) return "";
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return fmt::format("needs {} visible GPU(s), found {} ({}{})", n, have,
                     train::build_has_cuda() ? "CUDA build" : "CPU-only libtorch build",
                     visible ? fmt::format(", CUDA_VISIBLE_DEVICES='{}'", visible) : "");
}

double max_difference(model::Scnn& a, model::Scnn& b) {
  auto pb = b->named_parameters();
  double worst = 0;
  for (const auto& item : a->named_parameters())
    worst = std::max(worst, (item.value() - pb[item.key()]).abs().max().item<double>());
  return worst;
}

model::Scnn load_weights(const fs::path& checkpoint) {
  model::Scnn net(train::read_checkpoint_info(checkpoint).model);
  train::load_checkpoint(checkpoint, net, nullptr);
  return net;
}

}  // namespace

TEST_CASE("model, optimizer state and batches are placed on the GPU of the local rank", "[gpu][fast]") {
  if (const auto why = missing_gpus(1); !why.empty()) LANE_SKIP_CASE("placement: " << why);
  const auto choice = train::resolve_device("cuda", "--device", train::probe_device_environment(train::process_environment()));
  train::activate_device(choice);
  const auto device = train::torch_device(choice);
  CHECK(device.is_cuda());
  auto config = test::tiny_config("unused");
  model::Scnn net(config.model);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  net->to(device);
  for (const auto& p : net->parameters()) CHECK(p.device() == device);
  net->forward(torch::randn({1, 3, 64, 128}, device)).seg_logits.sum().backward();
  opt.step();  // momentum buffers are created on the device
  opt.zero_grad();
  train::move_optimizer_state(opt, torch::kCPU);
  train::move_optimizer_state(opt, device);
  for (auto& s : opt.state())
    CHECK(static_cast<torch::optim::SGDParamState&>(*s.second).momentum_buffer().device() == device);

  data::LoaderOptions o;
  o.pipeline.data_dir = test::tusimple_dir();
  o.pipeline.label_files = {"label_data_0601_first6.json"};
  o.pipeline.input_height = 64;
  o.pipeline.input_width = 128;
  o.batch_size = 2;
  data::TusimpleLoader loader(o);
  data::DeviceLoader batches(loader, device);
  batches.start_epoch(0);
  int n = 0;
  while (auto b = batches.next()) {
    CHECK(b->batch.images.device() == device);
    CHECK(b->batch.seg.device() == device);
    CHECK(b->host_seg.is_cpu());
    CHECK(b->batch.seg.cpu().equal(b->host_seg));  // the prefetched copy arrived whole
    ++n;
  }
  CHECK(n == 3);
}

TEST_CASE("bf16 and fp16 training on the GPU lower the loss on the real frames", "[gpu][fast]") {
  if (const auto why = missing_gpus(1); !why.empty()) LANE_SKIP_CASE("mixed-precision training: " << why);
  for (const std::string precision : {"bf16", "fp16", "fp32"}) {
    INFO(precision);
    test::ScratchDir dir("gpu_" + precision);
    auto config = test::tiny_config(dir.path / "out");
    config.device = "cuda";
    config.precision = precision;
    config.augment = false;
    config.epochs = 6;
    config.log_every = 3;
    config.warmup_steps = 0;
    config.lr = 0.02;
    const auto r = train::run_training(config);
    const auto losses = test::logged_train_losses(r.outputs.metrics());
    REQUIRE(losses.size() == 6);
    INFO("epoch losses " << losses[0] << " ... " << losses[5]);
    CHECK(losses[5] < 0.9 * losses[0]);
  }
}

TEST_CASE("a GPU run resumes on the CPU and a CPU run resumes on the GPU", "[gpu][fast]") {
  if (const auto why = missing_gpus(1); !why.empty()) LANE_SKIP_CASE("resume across devices: " << why);
  for (const auto& [first, second] : {std::pair<std::string, std::string>{"cuda", "cpu"}, {"cpu", "cuda"}}) {
    INFO(first << " then " << second);
    test::ScratchDir dir("gpu_resume");
    auto config = test::tiny_config(dir.path / "out");
    config.device = first;
    config.precision = "fp32";
    config.stop_after = 3;
    REQUIRE(train::run_training(config).steps == 3);
    config.device = second;
    config.stop_after = 0;
    config.resume = lane::train::ResumeMode::kOn;
    const auto r = train::run_training(config);
    CHECK(r.steps == 6);
    CHECK(std::isfinite(r.final_loss));
  }
}

TEST_CASE("a checkpoint continues the CUDA random stream: the draw after a resume equals the uninterrupted one", "[gpu][fast]") {
  if (const auto why = missing_gpus(1); !why.empty()) LANE_SKIP_CASE("CUDA RNG resume: " << why);
  test::ScratchDir dir("gpu_cuda_rng");
  const torch::Device gpu(torch::kCUDA, 0);
  model::Scnn net(test::tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  torch::manual_seed(11);  // seeds the CUDA generators too
  torch::rand({8}, gpu);   // somewhere in the stream, not at its seed
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, {}, {net->config(), 0});
  const auto uninterrupted = torch::rand({1000}, gpu).cpu();
  const auto stored = train::read_checkpoint_cuda_rng_states(path);
  REQUIRE(stored.has_value());
  CHECK(stored->size() == static_cast<size_t>(torch::cuda::device_count()));
  torch::manual_seed(12345);  // another stream, as a fresh process would have
  train::load_checkpoint(path, net, &opt);
  CHECK(torch::rand({1000}, gpu).cpu().equal(uninterrupted));
}

TEST_CASE("NCCL: 2 ranks x batch 1 on two GPUs reach the weights of 1 rank x batch 2 on the CPU", "[gpu][fast]") {
  if (const auto why = missing_gpus(2); !why.empty()) LANE_SKIP_CASE("NCCL against the CPU ring: " << why);
  test::ScratchDir dir("gpu_nccl");
  auto command = [&](int ranks, int batch, const std::string& device, const fs::path& out) {
    return fmt::format("env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 {}{} train --data-dir {} --train-labels label_data_0601_first6.json --output-dir {} "
                       "--model small --input-height 64 --input-width 128 --batch-size {} --max-steps 3 "
                       "--no-augment --threads 1 --lr 0.02 --freeze-bn --dropout 0 --device {} --precision fp32",
                       ranks == 1 ? "" : fmt::format("mpirun --oversubscribe -np {} ", ranks), test::scnn_train(),
                       test::tusimple_dir().string(), out.string(), batch, device);
  };
  auto one = test::run_command(command(1, 2, "cpu", dir.path / "one"));
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  auto two = test::run_command(command(2, 1, "cuda", dir.path / "two"));
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  auto a = load_weights(dir.path / "one" / "checkpoint_latest.pt");
  auto b = load_weights(dir.path / "two" / "checkpoint_latest.pt");
  torch::manual_seed(1);
  model::Scnn initial(a->config());
  const double moved = max_difference(a, initial), gap = max_difference(a, b);
  INFO("moved " << moved << ", gap " << gap);
  CHECK(moved > 1e-3);
  CHECK(gap <= 1e-3 * moved);  // cuDNN vs CPU kernels: looser than the CPU-only 1e-4
}
