// Mixed precision and devices on the CPU: autocast really computes in bf16 inside its scope and
// restores the previous state; the fp16 loss scaler unscales exactly, skips a step with an
// injected inf or NaN gradient and grows/backs off its scale; bf16 training lowers the loss on
// the real TuSimple frames; a checkpoint of a bf16 run resumes in fp32; device requests that
// this build cannot meet exit 2 naming the fix; on a CPU with AMX and oneDNN before 3.0, training
// checks the AMX bf16 kernels on its model's shapes and uses them only when they pass.
#include "catch_torch.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "train/device/device_select.h"
#include "train/dist/communicator.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/mixed_precision.h"
#include "train/trainer/trainer.h"
#include "trainer_test_util.h"

using namespace lane;
using train::Precision;

namespace {

// The major version of the oneDNN this process links (0 when libtorch does not export dnnl_version).
int onednn_major() {
  struct Version {
    int major, minor, patch;
  };
  const auto version = reinterpret_cast<const Version* (*)()>(dlsym(RTLD_DEFAULT, "dnnl_version"));
  return version ? version()->major : 0;
}

std::string cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A tiny regression problem whose gradients are known.
struct Tiny {
  torch::nn::Linear fc{4, 2};
  torch::Tensor x = torch::arange(8, torch::kFloat32).reshape({2, 4}) / 8;
  torch::Tensor loss() { return fc->forward(x).pow(2).sum(); }
};

}  // namespace

TEST_CASE("autocast runs convolutions in bf16 inside its scope on the CPU, fp32 outside", "[trainer][fast]") {
  auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3));
  auto x = torch::randn({1, 3, 8, 8});
  {
    train::AutocastScope scope(torch::kCPU, Precision::kBf16);
    CHECK(conv->forward(x).scalar_type() == torch::kBFloat16);
    CHECK(conv->weight.scalar_type() == torch::kFloat32);  // master weights stay fp32
  }
  CHECK(conv->forward(x).scalar_type() == torch::kFloat32);
  {
    train::AutocastScope fp32(torch::kCPU, Precision::kFp32);
    CHECK(conv->forward(x).scalar_type() == torch::kFloat32);
  }
}

TEST_CASE("the loss scaler unscales to the unscaled gradients and steps", "[trainer][fast]") {
  auto comm = dist::create_single_process_communicator();
  torch::manual_seed(3);
  Tiny a, b;
  {
    torch::NoGradGuard no_grad;
    b.fc->weight.copy_(a.fc->weight);
    b.fc->bias.copy_(a.fc->bias);
  }
  torch::optim::SGD oa(a.fc->parameters(), 0.1), ob(b.fc->parameters(), 0.1);
  train::GradScaler scaler;
  scaler.scale(a.loss()).backward();
  CHECK(a.fc->weight.grad().abs().max().item<double>() > 1000);  // really scaled (65536)
  CHECK(scaler.step(oa, *comm));
  b.loss().backward();
  ob.step();
  CHECK(torch::allclose(a.fc->weight, b.fc->weight, 1e-6, 1e-7));
  CHECK(torch::allclose(a.fc->bias, b.fc->bias, 1e-6, 1e-7));
  CHECK(scaler.current_scale() == 65536.0);
  CHECK(scaler.skipped_steps() == 0);
}

TEST_CASE("a step with an injected inf or NaN gradient is skipped and the scale backs off", "[trainer][fast]") {
  auto comm = dist::create_single_process_communicator();
  for (const double poison : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    INFO("injected " << poison);
    Tiny t;
    torch::optim::SGD opt(t.fc->parameters(), 0.1);
    train::GradScaler scaler;
    const auto before = t.fc->weight.detach().clone();
    scaler.scale(t.loss()).backward();
    t.fc->bias.grad()[1] = poison;
    CHECK_FALSE(scaler.step(opt, *comm));
    CHECK(t.fc->weight.equal(before));  // nothing stepped, not even the finite gradients
    CHECK(scaler.current_scale() == 32768.0);
    CHECK(scaler.skipped_steps() == 1);
    // The next clean step goes through at the lower scale.
    opt.zero_grad();
    scaler.scale(t.loss()).backward();
    CHECK(scaler.step(opt, *comm));
    CHECK_FALSE(t.fc->weight.equal(before));
    CHECK(scaler.current_scale() == 32768.0);
  }
}

TEST_CASE("the scale grows after growth_interval clean steps in a row, and an inf resets the count", "[trainer][fast]") {
  auto comm = dist::create_single_process_communicator();
  Tiny t;
  torch::optim::SGD opt(t.fc->parameters(), 1e-3);
  train::GradScaler::Options o;
  o.initial_scale = 8;
  o.growth_interval = 2;
  train::GradScaler scaler(o);
  auto step = [&](bool poison) {
    opt.zero_grad();
    scaler.scale(t.loss()).backward();
    if (poison) t.fc->weight.grad()[0][0] = std::numeric_limits<float>::infinity();
    return scaler.step(opt, *comm);
  };
  CHECK(step(false));
  CHECK(scaler.current_scale() == 8);
  CHECK_FALSE(step(true));
  CHECK(scaler.current_scale() == 4);
  CHECK(step(false));
  CHECK(scaler.current_scale() == 4);  // the inf reset the run of clean steps
  CHECK(step(false));
  CHECK(scaler.current_scale() == 8);
  CHECK_THROWS_AS(train::GradScaler(train::GradScaler::Options{1, 1.0, 0.5, 10}), lane::Error);
}

TEST_CASE("bf16 training on the CPU lowers the loss on the real frames, and its checkpoint resumes in fp32", "[trainer][slow]") {
  test::ScratchDir dir("bf16");
  auto config = test::tiny_config(dir.path / "bf16");
  config.precision = "bf16";
  config.augment = false;
  config.epochs = 6;          // 3 steps per epoch over the same 6 frames
  config.log_every = 3;       // one logged mean per epoch: comparable windows
  config.warmup_steps = 0;
  config.lr = 0.02;
  const auto r = train::run_training(config);
  REQUIRE(r.steps == 18);
  const auto losses = test::logged_train_losses(r.outputs.metrics());
  REQUIRE(losses.size() == 6);
  INFO("epoch losses " << losses[0] << " ... " << losses[5]);
  CHECK(std::isfinite(losses[5]));
  CHECK(losses[5] < 0.9 * losses[0]);

  // Master weights are float32 in the checkpoint, and an fp32 run continues from it.
  model::Scnn net(config.model);
  train::load_checkpoint(r.outputs.latest_checkpoint(), net, nullptr);
  for (const auto& p : net->parameters()) CHECK(p.scalar_type() == torch::kFloat32);
  config.stop_after = 0;
  config.epochs = 7;
  config.resume = lane::train::ResumeMode::kOn;
  config.precision = "fp32";
  const auto resumed = train::run_training(config);
  CHECK(resumed.steps == 21);
  CHECK(std::isfinite(resumed.final_loss));
}

TEST_CASE("scnn-train train: device and precision requests this build cannot meet exit 2 with the fix", "[trainer][slow]") {
  test::ScratchDir dir("device_cli");
  const std::string data = "--data-dir " + test::tusimple_dir().string() +
                           " --train-labels label_data_0601_first6.json --model small --input-height 64 "
                           "--input-width 128 --max-steps 1 --output-dir " + (dir.path / "out").string() + " ";
  struct Case { std::string env, args, expect; };
  std::vector<Case> cases = {
      {"DEVICE=tpu", data, "environment variable DEVICE: 'tpu' is not a device"},
      {"", data + "--device cuda:x", "--device: 'cuda:x' is not a device"},
      {"PRECISION=fp8", data + "--device cpu", "environment variable PRECISION: 'fp8' is not a precision"},
      {"", data + "--device cpu --precision fp16", "fp16 needs a GPU"},
  };
  if (!train::build_has_cuda())
    cases.push_back({"", data + "--device cuda", "CPU-only libtorch; use --device cpu"});
  else
    WARN("CUDA build: the CPU-only-build error is not exercised here");
  for (const auto& c : cases) {
    INFO(c.env << " " << c.args);
    const auto r = test::run_command("env -u DEVICE -u PRECISION " + c.env + " " + test::scnn_train() + " train " +
                                     c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.expect));
  }
}

TEST_CASE("status_of_child: the body's exit status, a signal's or a throw's, and the parent untouched", "[trainer][fast]") {
  CHECK(train::status_of_child([] { return 0; }) == 0);
  CHECK(train::status_of_child([] { return 3; }) == 3);
  CHECK(train::status_of_child([]() -> int { throw std::runtime_error("no"); }) == 125);
  CHECK(train::status_of_child([]() -> int {  // SIGKILL: Catch2 would report a SIGABRT of the child
          ::kill(::getpid(), SIGKILL);
          return 0;
        }) == 128 + SIGKILL);
  ::unsetenv("LANE_TEST_CHILD_MARK");
  CHECK(train::status_of_child([] {
          ::setenv("LANE_TEST_CHILD_MARK", "1", 1);
          return torch::ones({2, 3}).sum().item<double>() == 6.0 ? 0 : 1;  // libtorch works in the child
        }) == 0);
  CHECK(std::getenv("LANE_TEST_CHILD_MARK") == nullptr);
}

TEST_CASE("scnn-train train on a CPU with AMX and oneDNN before 3.0: the AMX bf16 kernels train only where they pass a check on the model's shapes", "[trainer][slow]") {
  test::ScratchDir dir("amx_check");
  const bool capped = train::onednn_isa_cap(onednn_major(), train::cpu_flags_have(cpuinfo(), "amx_bf16"), false).has_value();
  // Two steps of the small model; `env` before the command, `args` after it.
  const auto train_run = [&](int height, int width, int batch, const std::string& env, const std::string& args) {
    std::filesystem::remove_all(dir.path / "out");
    return test::run_command(fmt::format(
        "env -u ONEDNN_MAX_CPU_ISA -u DNNL_MAX_CPU_ISA -u DEVICE -u PRECISION {} {} train --data-dir {} "
        "--train-labels label_data_0601_first6.json --model small --input-height {} --input-width {} --batch-size {} "
        "--threads 1 --max-steps 2 --output-dir {} {}",
        env, test::scnn_train(), test::tusimple_dir().string(), height, width, batch, (dir.path / "out").string(), args));
  };
  // What oneDNN's log (ONEDNN_VERBOSE=1) says from the run's first line on.
  const auto run_part = [](const std::string& output) {
    const auto at = output.find("scnn-train: model");
    return at == std::string::npos ? std::string() : output.substr(at);
  };
  if (!capped) {
    // No AMX, or a oneDNN whose AMX kernels are left alone: no check, no note, the plain default.
    const auto r = train_run(128, 224, 4, "", "");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, !Catch::Contains("on a CPU with AMX"));
    CHECK_THAT(r.output, Catch::Contains(train::cpu_has_native_bf16() ? "cpu bf16" : "cpu fp32"));
    WARN("this CPU and oneDNN need no AMX cap: the check itself is exercised on a CPU with amx_bf16 and oneDNN < 3");
    return;
  }
  {  // The demo's shapes pass: bf16 on the AMX kernels (oneDNN's log names them for the run's own kernels).
    const auto r = train_run(128, 224, 4, "ONEDNN_VERBOSE=1", "");
    INFO(r.output.substr(0, 4000));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("cpu bf16"));
    CHECK_THAT(r.output, Catch::Contains("its AMX bf16 kernels passed a check on this model's shapes (one forward and backward pass at batch 4 on random data, "));
    CHECK_THAT(run_part(r.output), Catch::Contains("avx512_core_amx_bf16,backward_weights"));
  }
  {  // 256x448: the first layers' weight gradients are not finite on AMX, so the default is fp32.
    const auto r = train_run(256, 448, 6, "", "");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("cpu fp32"));
    CHECK_THAT(r.output, Catch::Contains("as its AMX bf16 kernels computed non-finite gradients on this model's shapes"));
    CHECK_THAT(r.output, Catch::Contains("so the default precision is fp32"));
  }
  {  // Asked for, bf16 trains there on the capped kernels (without the cap its second loss is NaN).
    const auto r = train_run(256, 448, 6, "ONEDNN_VERBOSE=1", "--precision bf16");
    INFO(r.output.substr(0, 4000));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("cpu bf16"));
    CHECK_THAT(r.output, Catch::Contains("its CPU kernels are capped at AVX512_CORE_BF16"));
    CHECK_THAT(r.output, !Catch::Contains("so the default precision is fp32"));
    const auto run = run_part(r.output);
    CHECK_THAT(run, Catch::Contains("avx512_core_bf16"));
    CHECK_THAT(run, !Catch::Contains("avx512_core_amx"));
  }
}
