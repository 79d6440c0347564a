// Resume: N steps, stop, --resume for N more gives exactly the losses and weights of an
// uninterrupted 2N-step run (CPU, 1 thread, augmentation on).
#include "catch_torch.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "train/trainer/checkpoint.h"
#include "train/config/train_settings.h"
#include "train/trainer/trainer.h"
#include "trainer_test_util.h"

using namespace lane;

namespace {

std::vector<std::pair<int64_t, double>> train_losses(const std::filesystem::path& metrics) {
  std::vector<std::pair<int64_t, double>> out;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["kind"] == "train") out.emplace_back(j["step"].get<int64_t>(), j["loss"].get<double>());
  }
  return out;
}

}  // namespace

TEST_CASE("resume continues bit-exactly: N steps + resume N steps == 2N steps", "[trainer][slow]") {
  test::ScratchDir dir("resume");
  auto config = test::tiny_config(dir.path / "straight");
  config.epochs = 2;  // 3 steps per epoch: the interruption falls mid-epoch 1 (step 4 of 6)
  config.use_val = true;
  // The end-of-training hook runs once, with the result, after a finished run only.
  std::vector<int64_t> hook_steps;
  const train::EndOfTraining hook = [&](const train::TrainConfig& c, const train::TrainingResult& r) {
    CHECK(c.output_dir == r.outputs.dir);
    CHECK(std::filesystem::exists(r.outputs.curves()));
    hook_steps.push_back(r.steps);
  };
  const auto straight_config = config;
  const auto straight = train::run_training(config, hook);
  REQUIRE(straight.steps == 6);
  CHECK(hook_steps == std::vector<int64_t>{6});

  config.output_dir = dir.path / "interrupted";
  config.stop_after = 4;
  const auto first = train::run_training(config, hook);
  REQUIRE(first.steps == 4);
  CHECK(hook_steps == std::vector<int64_t>{6});  // preempted: no hook
  config.stop_after = 0;
  config.resume = lane::train::ResumeMode::kOn;
  const auto second = train::run_training(config);
  REQUIRE(second.steps == 6);

  const auto a = train_losses(straight.outputs.metrics()), b = train_losses(second.outputs.metrics());
  REQUIRE(a.size() == 6);
  REQUIRE(b.size() == 6);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("step " << a[i].first);
    CHECK(a[i].first == b[i].first);
    CHECK(a[i].second == b[i].second);  // exact, not approximate
  }
  CHECK(a[0].second != a[5].second);

  model::Scnn wa(config.model), wb(config.model);
  train::load_checkpoint(straight.outputs.latest_checkpoint(), wa, nullptr);
  train::load_checkpoint(second.outputs.latest_checkpoint(), wb, nullptr);
  for (const auto& p : wa->named_parameters()) CHECK(p.value().equal(wb->named_parameters()[p.key()]));

  // Outputs of a finished run with validation.
  CHECK(std::filesystem::file_size(straight.outputs.curves()) > 1000);
  CHECK(std::filesystem::exists(straight.outputs.best_checkpoint()));
  CHECK(straight.best_accuracy >= 0.0);
  CHECK(straight.best_accuracy <= 1.0);
  // Every checkpoint records every setting of the run.
  for (const auto& path : {straight.outputs.latest_checkpoint(), straight.outputs.best_checkpoint()}) {
    const auto settings = train::read_checkpoint_settings(path);
    CHECK(settings == train::settings_record(straight_config));
    CHECK(settings.size() == train::train_settings().size());
  }
}
