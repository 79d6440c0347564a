// Configuration: flags beat the seed's environment variables; bad values name their source.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "common/error.h"
#include "train/trainer/lr_schedule.h"
#include "trainer_test_util.h"

using lane::train::resolve_train_config;
using lane::train::TrainFlags;

namespace {

lane::train::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TrainFlags with_data() {
  TrainFlags f;
  f.data_dir = lane::test::tusimple_dir().string();
  return f;
}

std::string error_of(const TrainFlags& f, std::map<std::string, std::string> env) {
  try {
    resolve_train_config(f, env_of(env));
  } catch (const lane::UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("seed environment variables configure the run, flags win") {
  auto c = resolve_train_config(with_data(), env_of({{"BATCH_SIZE", "33"}, {"VAL_BATCH_SIZE", "99"},
                                                     {"EPOCHS", "3"}, {"NUM_WORKERS", "4"},
                                                     {"USE_WORKERS", "true"}, {"USE_VAL", "false"},
                                                     {"OUTPUT_DIR", "/tmp/x"}}));
  CHECK(c.batch_size == 33);
  CHECK(c.val_batch_size == 99);
  CHECK(c.epochs == 3);
  CHECK(c.num_workers == 4);
  CHECK(c.use_workers);
  CHECK_FALSE(c.use_val);
  CHECK(c.output_dir == "/tmp/x");
  CHECK(c.model.width_mult == 1.0);

  auto f = with_data();
  f.batch_size = "4";
  f.model = "small";
  c = resolve_train_config(f, env_of({{"BATCH_SIZE", "33"}}));
  CHECK(c.batch_size == 4);
  CHECK(c.model.width_mult == 0.125);

  auto env_only = TrainFlags{};
  c = resolve_train_config(env_only, env_of({{"DATA_DIR", lane::test::tusimple_dir().string()}}));
  CHECK(c.data_dir == lane::test::tusimple_dir());
}

TEST_CASE("invalid settings are rejected naming the variable or flag") {
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "abc"}}), Catch::Contains("BATCH_SIZE") && Catch::Contains("abc"));
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "0"}}), Catch::Contains("BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "-3"}}), Catch::Contains("BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"EPOCHS", "1.5"}}), Catch::Contains("EPOCHS"));
  CHECK_THAT(error_of(with_data(), {{"VAL_BATCH_SIZE", ""}}), Catch::Contains("VAL_BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"NUM_WORKERS", "many"}}), Catch::Contains("NUM_WORKERS"));
  CHECK_THAT(error_of(with_data(), {{"USE_WORKERS", "maybe"}}), Catch::Contains("USE_WORKERS"));
  CHECK_THAT(error_of(with_data(), {{"USE_VAL", "2"}}), Catch::Contains("USE_VAL"));
  CHECK_THAT(error_of(with_data(), {{"OMP_NUM_THREADS", "x"}}), Catch::Contains("OMP_NUM_THREADS"));

  auto f = with_data();
  f.batch_size = "0";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--batch-size"));
  f = with_data();
  f.model = "resnet";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--model") && Catch::Contains("resnet"));
  f = with_data();
  f.lr = "-1";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--lr"));
  f = with_data();
  f.input_height = "100";
  CHECK_THAT(error_of(f, {}), Catch::Contains("multiple of 8"));
  f = with_data();
  f.train_labels = "nope.json";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--train-labels") && Catch::Contains("nope.json"));

  CHECK_THAT(error_of(TrainFlags{}, {}), Catch::Contains("DATA_DIR") && Catch::Contains("--data-dir"));
  CHECK_THAT(error_of(TrainFlags{}, {{"DATA_DIR", "/nonexistent/tusimple"}}),
             Catch::Contains("DATA_DIR") && Catch::Contains("/nonexistent/tusimple"));
}

TEST_CASE("poly schedule with linear warm-up") {
  lane::train::LrSchedule s{0.1, 4, 104, 0.9};
  CHECK(s.at(0) == Approx(0.02));
  CHECK(s.at(3) == Approx(0.08));
  CHECK(s.at(4) == Approx(0.1));
  CHECK(s.at(54) == Approx(0.1 * std::pow(0.5, 0.9)));
  CHECK(s.at(104) == Approx(0.0));
}

TEST_CASE("the dropout and freeze-bn flags reach the config, and a bad dropout names the flag") {
  auto f = with_data();
  auto defaults = resolve_train_config(f, env_of({}));
  CHECK(defaults.model.dropout == 0.1);
  CHECK_FALSE(defaults.freeze_bn);
  f.dropout = "0";
  f.freeze_bn = true;
  auto exact = resolve_train_config(f, env_of({}));
  CHECK(exact.model.dropout == 0.0);
  CHECK(exact.freeze_bn);

  for (const char* bad : {"1", "1.5", "-0.1"}) {
    f.dropout = bad;
    CHECK_THAT(error_of(f, {}), Catch::Contains("--dropout") && Catch::Contains(bad) && Catch::Contains("[0, 1)"));
  }
  f.dropout = "abc";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--dropout") && Catch::Contains("abc"));
}

TEST_CASE("the loss weight flags reach the config and bad values name the flag") {
  auto f = with_data();
  auto defaults = resolve_train_config(f, env_of({}));
  CHECK(defaults.background_weight == 0.4);
  CHECK(defaults.exist_weight == 0.1);
  f.background_weight = "1";
  f.exist_weight = "0";
  auto set = resolve_train_config(f, env_of({}));
  CHECK(set.background_weight == 1.0);
  CHECK(set.exist_weight == 0.0);
  f.background_weight = "0";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--background-weight") && Catch::Contains("> 0"));
  f.background_weight = "1";
  f.exist_weight = "-1";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--exist-weight") && Catch::Contains(">= 0"));
}
