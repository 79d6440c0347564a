// The pieces of a training step built for a device (what bench_train_step times) and the CUDA
// RNG states in checkpoints. No scnn-train binary needed: this executable builds without it.
#include "catch_torch.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <ATen/CPUGeneratorImpl.h>

#include "common/sha256.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/train_step.h"
#include "trainer_test_util.h"

using namespace lane;

namespace {

std::vector<torch::Device> devices_here() {
  std::vector<torch::Device> d{torch::kCPU};
  if (torch::cuda::is_available()) d.emplace_back(torch::kCUDA, 0);
  return d;
}

}  // namespace

TEST_CASE("make_step_parts builds model, optimizer and loss on the requested device", "[trainer][fast]") {
  // bench_train_step --device cuda built the loss for the CPU and threw at its first step
  // ("targets on cuda:0 but the loss was built for cpu").
  for (const auto& device : devices_here()) {
    INFO(device.str());
    auto parts = train::make_step_parts(test::tiny_model(), device);
    CHECK(parts.loss.device() == device);
    for (const auto& p : parts.net->parameters()) CHECK(p.device() == device);
    CHECK(parts.opt->param_groups()[0].params().size() == parts.net->parameters().size());
    // One step on that device: the loss accepts targets there.
    const auto& c = parts.net->config();
    const auto seg = torch::randint(0, c.num_classes, {2, c.input_height, c.input_width}, torch::kInt64).to(device);
    const auto exist = torch::randint(0, 2, {2, c.num_classes - 1}).to(torch::kFloat32).to(device);
    auto l = parts.loss(parts.net->forward(torch::randn({2, 3, c.input_height, c.input_width}).to(device)), seg, exist);
    l.total.backward();
    parts.opt->step();
    CHECK(std::isfinite(l.total.item<double>()));
  }
}

TEST_CASE("checkpoint archives round-trip a list of CUDA RNG states, and archives without them read as none", "[trainer][fast]") {
  // Stand-ins for CUDA generator states (uint8 tensors of any length): the format is what is tested.
  const std::vector<torch::Tensor> states{torch::randint(0, 255, {16}, torch::kUInt8),
                                          torch::randint(0, 255, {16}, torch::kUInt8)};
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}}) {
    torch::serialize::OutputArchive out;
    out.write("rng_cpu", torch::zeros({3}));
    train::write_cuda_rng_states(out, std::vector<torch::Tensor>(states.begin(), states.begin() + n));
    std::ostringstream bytes;
    out.save_to(bytes);
    std::istringstream in_bytes(bytes.str());
    torch::serialize::InputArchive in;
    in.load_from(in_bytes);
    const auto back = train::read_cuda_rng_states(in);
    REQUIRE(back.has_value());
    REQUIRE(back->size() == n);
    for (size_t i = 0; i < n; ++i) CHECK((*back)[i].equal(states[i]));
  }
  torch::serialize::OutputArchive old;  // what a checkpoint saved before the CUDA states holds
  old.write("rng_cpu", torch::zeros({3}));
  std::ostringstream bytes;
  old.save_to(bytes);
  std::istringstream in_bytes(bytes.str());
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  CHECK_FALSE(train::read_cuda_rng_states(in).has_value());
}

TEST_CASE("every checkpoint records the CUDA RNG states of the visible GPUs (none on a CPU)", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_cuda_rng");
  model::Scnn net(test::tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, {}, {net->config(), 0});
  const auto stored = train::read_checkpoint_cuda_rng_states(path);
  REQUIRE(stored.has_value());
  CHECK(stored->size() == train::cuda_rng_states().size());
  if (!torch::cuda::is_available()) CHECK(stored->empty());
  // Restoring more states than there are GPUs warns and goes on (a GPU run resumed on the CPU).
  std::vector<torch::Tensor> extra(train::cuda_rng_states());
  extra.push_back(torch::zeros({16}, torch::kUInt8));
  CHECK_NOTHROW(train::restore_cuda_rng_states(extra, "test"));
  CHECK_NOTHROW(train::load_checkpoint(path, net, &opt));
}

TEST_CASE("a checkpoint saved before the CUDA RNG states were recorded still loads", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_no_cuda_rng");
  torch::manual_seed(4);
  model::Scnn net(test::tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  // The archive of the previous format (no CUDA RNG states), written here key by key.
  torch::serialize::OutputArchive archive, model_archive, opt_archive;
  net->save(model_archive);
  opt.save(opt_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", opt_archive);
  archive.write("progress", torch::tensor({int64_t{3}, int64_t{0}, int64_t{3}}, torch::kInt64));
  archive.write("best_accuracy", torch::tensor({-1.0}, torch::kFloat64));
  const nlohmann::json info = {{"num_classes", net->config().num_classes}, {"input_height", 32},
                               {"input_width", 64}, {"width_mult", net->config().width_mult},
                               {"update_first_slice", true}, {"scnn_kernel", 9}, {"crop_top", 0}};
  const std::string text = info.dump();
  auto info_tensor = torch::empty({static_cast<int64_t>(text.size())}, torch::kUInt8);
  std::memcpy(info_tensor.data_ptr(), text.data(), text.size());
  archive.write("model_info", info_tensor);
  archive.write("rng_cpu", at::detail::getDefaultCPUGenerator().get_state());
  const auto path = dir.path / "checkpoint_latest.pt";
  std::ostringstream payload;
  archive.save_to(payload);
  // With its digest line, as every checkpoint of that format was saved (a file without one is refused).
  std::ofstream(path, std::ios::binary) << "lanectl-checkpoint sha256=" << lane::sha256_hex(payload.str()) << "\n"
                                        << payload.str();
  CHECK_FALSE(train::read_checkpoint_cuda_rng_states(path).has_value());
  model::Scnn other(test::tiny_model());
  torch::optim::SGD other_opt(other->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  CHECK(train::load_checkpoint(path, other, &other_opt).step == 3);
}

TEST_CASE("the memory format auto is channels_last on a GPU and contiguous on a CPU, the others are forced",
          "[trainer][fast]") {
  const train::DeviceChoice cpu{}, gpu{train::DeviceKind::kCuda, 0};
  CHECK(train::resolve_memory_format("auto", cpu) == at::MemoryFormat::Contiguous);
  CHECK(train::resolve_memory_format("auto", gpu) == at::MemoryFormat::ChannelsLast);
  CHECK(train::resolve_memory_format("channels_last", cpu) == at::MemoryFormat::ChannelsLast);
  CHECK(train::resolve_memory_format("contiguous", gpu) == at::MemoryFormat::Contiguous);
  CHECK(std::string(train::memory_format_name(at::MemoryFormat::ChannelsLast)) == "channels_last");
}
