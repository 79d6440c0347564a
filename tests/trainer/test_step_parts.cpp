// The pieces of a training step built for a device (what bench_train_step times). No scnn-train
// binary needed: this executable builds without it.
#include "catch_torch.h"

#include <cmath>
#include <sstream>

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

TEST_CASE("make_step_parts builds model, optimizer and loss on the requested device") {
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
