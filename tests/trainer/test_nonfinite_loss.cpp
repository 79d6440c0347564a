// Issue 28, item 12: a run whose loss becomes NaN stops with a clear error (the step, the last
// finite loss, what to change), keeps the metrics and curves written so far, never writes NaN
// (as null) into metrics.jsonl and never saves the diverged weights.
#include "catch_torch.h"

#include <cmath>
#include <fstream>
#include <limits>

#include "common/error.h"
#include "common/atomic_file.h"
#include "common/run_outputs.h"
#include "train/trainer/checkpoint.h"
#include "trainer_test_util.h"

using namespace lane;
namespace fs = std::filesystem;

TEST_CASE("a metrics record refuses NaN and infinity instead of writing null", "[trainer][fast]") {
  MetricsRecord good{std::string(MetricsRecord::kTrain), {{"step", 3}, {"loss", 0.5}}};
  CHECK(good.to_line() == R"({"kind":"train","loss":0.5,"step":3})");
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    MetricsRecord r{std::string(MetricsRecord::kTrain), {{"step", 3}, {"loss", bad}}};
    CHECK_THROWS_AS(r.to_line(), Error);
    CHECK_THROWS_WITH(r.to_line(), Catch::Contains("'loss'"));
  }
}

TEST_CASE("a run whose loss becomes NaN stops with the step, the last finite loss and hints, and keeps its curves", "[trainer][slow]") {
  test::ScratchDir dir("nan_loss");
  const fs::path out = dir.path / "run";
  // lr 1e6 on the small model: the first step's loss is finite, the second one's is NaN.
  const auto r = test::run_command(
      test::scnn_train() + " train --data-dir " + test::tusimple_dir().string() + " --output-dir " + out.string() +
      " --train-labels label_data_0601_first6.json --model small --input-height 64 --input-width 128"
      " --batch-size 2 --epochs 2 --lr 1e6 --threads 1 --log-every 1 --checkpoint-every 1");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("the training loss became NaN by step 2") != std::string::npos);
  CHECK(r.output.find("the last finite loss was") != std::string::npos);
  CHECK(r.output.find("at step 1") != std::string::npos);
  CHECK(r.output.find("Lower the learning rate (--lr") != std::string::npos);
  CHECK(r.output.find("json.exception") == std::string::npos);

  // What was written before the loss diverged is kept, and nothing after it.
  const std::string metrics = read_file(out / "metrics.jsonl");
  CHECK(metrics.find("null") == std::string::npos);
  const auto records = parse_metrics_records(metrics);
  REQUIRE(records.size() == 1);
  CHECK(records[0].step() == 1);
  CHECK(std::isfinite(*records[0].number("loss")));
  CHECK(fs::file_size(out / "training_curves.png") > 0);
  // The checkpoint is step 1's: the NaN weights of step 2 were not saved over it.
  auto cfg = model::model_preset("small");
  cfg.input_height = 64;
  cfg.input_width = 128;
  model::Scnn shaped(cfg);
  CHECK(train::load_checkpoint(out / "checkpoint_latest.pt", shaped, nullptr).step == 1);
}
