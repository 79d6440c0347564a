// Configuration: flags beat the seed's environment variables; bad values name their source.
#include "catch_torch.h"

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/trainer/lr_schedule.h"
#include "train/config/train_settings.h"
#include "trainer_test_util.h"

using lane::train::resolve_train_config;
using lane::train::TrainFlags;
using lane::train::settings_record;
using lane::train::training_differences;
using lane::train::TrainConfig;

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
  f["--data-dir"] = lane::test::tusimple_dir().string();
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

TEST_CASE("seed environment variables configure the run, flags win", "[trainer][fast]") {
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
  f["--batch-size"] = "4";
  f["--model"] = "small";
  c = resolve_train_config(f, env_of({{"BATCH_SIZE", "33"}}));
  CHECK(c.batch_size == 4);
  CHECK(c.model.width_mult == 0.125);

  auto env_only = TrainFlags{};
  c = resolve_train_config(env_only, env_of({{"DATA_DIR", lane::test::tusimple_dir().string()}}));
  CHECK(c.data_dir == lane::test::tusimple_dir());
}

TEST_CASE("invalid settings are rejected naming the variable or flag", "[trainer][fast]") {
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "abc"}}), Catch::Contains("BATCH_SIZE") && Catch::Contains("abc"));
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "0"}}), Catch::Contains("BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "-3"}}), Catch::Contains("BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"EPOCHS", "1.5"}}), Catch::Contains("EPOCHS"));
  CHECK_THAT(error_of(with_data(), {{"VAL_BATCH_SIZE", ""}}), Catch::Contains("VAL_BATCH_SIZE"));
  CHECK_THAT(error_of(with_data(), {{"NUM_WORKERS", "many"}}), Catch::Contains("NUM_WORKERS"));
  CHECK_THAT(error_of(with_data(), {{"USE_WORKERS", "maybe"}}), Catch::Contains("USE_WORKERS"));
  CHECK_THAT(error_of(with_data(), {{"USE_VAL", "2"}}), Catch::Contains("USE_VAL"));
  CHECK_THAT(error_of(with_data(), {{"OMP_NUM_THREADS", "x"}}), Catch::Contains("OMP_NUM_THREADS"));
  CHECK_THAT(error_of(with_data(), {{"MEMORY_FORMAT", "nhwc"}}),
             Catch::Contains("MEMORY_FORMAT") && Catch::Contains("nhwc") && Catch::Contains("channels_last"));

  auto f = with_data();
  f["--batch-size"] = "0";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--batch-size"));
  f = with_data();
  f["--model"] = "resnet";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--model") && Catch::Contains("resnet"));
  f = with_data();
  f["--lr"] = "-1";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--lr"));
  f = with_data();
  f["--input-height"] = "100";
  CHECK_THAT(error_of(f, {}), Catch::Contains("multiple of 8"));
  // Too large for the field: refused, not cut to 32 bits (4294967360 was trained as 64).
  f = with_data();
  f["--input-height"] = "4294967360";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--input-height: 4294967360 is too large (at most 2147483647)"));
  f = with_data();
  f["--input-height"] = "2147483640";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--input-height must be a multiple of 8 from 16 to 8192"));
  CHECK_THAT(error_of(with_data(), {{"BATCH_SIZE", "99999999999"}}), Catch::Contains("BATCH_SIZE: 99999999999 is too large"));
  f = with_data();
  f["--train-labels"] = "nope.json";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--train-labels") && Catch::Contains("nope.json"));

  CHECK_THAT(error_of(TrainFlags{}, {}), Catch::Contains("DATA_DIR") && Catch::Contains("--data-dir"));
  CHECK_THAT(error_of(TrainFlags{}, {{"DATA_DIR", "/nonexistent/tusimple"}}),
             Catch::Contains("DATA_DIR") && Catch::Contains("/nonexistent/tusimple"));
}

TEST_CASE("poly schedule with linear warm-up", "[trainer][fast]") {
  lane::train::LrSchedule s{0.1, 4, 104, 0.9};
  CHECK(s.at(0) == Approx(0.02));
  CHECK(s.at(3) == Approx(0.08));
  CHECK(s.at(4) == Approx(0.1));
  CHECK(s.at(54) == Approx(0.1 * std::pow(0.5, 0.9)));
  CHECK(s.at(104) == Approx(0.0));
}

TEST_CASE("the dropout and freeze-bn flags reach the config, and a bad dropout names the flag", "[trainer][fast]") {
  auto f = with_data();
  auto defaults = resolve_train_config(f, env_of({}));
  CHECK(defaults.model.dropout == 0.1);
  CHECK_FALSE(defaults.freeze_bn);
  f["--dropout"] = "0";
  f["--freeze-bn"] = "true";
  auto exact = resolve_train_config(f, env_of({}));
  CHECK(exact.model.dropout == 0.0);
  CHECK(exact.freeze_bn);

  for (const char* bad : {"1", "1.5", "-0.1"}) {
    f["--dropout"] = bad;
    CHECK_THAT(error_of(f, {}), Catch::Contains("--dropout") && Catch::Contains(bad) && Catch::Contains("[0, 1)"));
  }
  f["--dropout"] = "abc";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--dropout") && Catch::Contains("abc"));
}

TEST_CASE("the loss weight flags reach the config and bad values name the flag", "[trainer][fast]") {
  auto f = with_data();
  auto defaults = resolve_train_config(f, env_of({}));
  CHECK(defaults.background_weight == 0.4);
  CHECK(defaults.exist_weight == 0.1);
  f["--background-weight"] = "1";
  f["--exist-weight"] = "0";
  auto set = resolve_train_config(f, env_of({}));
  CHECK(set.background_weight == 1.0);
  CHECK(set.exist_weight == 0.0);
  f["--background-weight"] = "0";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--background-weight") && Catch::Contains("> 0"));
  f["--background-weight"] = "1";
  f["--exist-weight"] = "-1";
  CHECK_THAT(error_of(f, {}), Catch::Contains("--exist-weight") && Catch::Contains(">= 0"));
}

TEST_CASE("the settings list: unique keys and flags, one record entry each, help with the real default", "[trainer][fast]") {
  const auto& settings = lane::train::train_settings();
  std::set<std::string> keys, flags;
  const lane::train::TrainConfig defaults;
  for (const auto& s : settings) {
    INFO(s.flag);
    CHECK(keys.insert(s.key).second);
    CHECK(flags.insert(s.flag).second);
    CHECK(s.flag.rfind("--", 0) == 0);
    const std::string help = lane::train::setting_help(s);
    CHECK(help.rfind(s.help, 0) == 0);
    if (!s.env.empty()) CHECK_THAT(help, Catch::Contains("[env: " + s.env));
    const std::string fallback = lane::train::setting_text(s.value(defaults));
    if (!s.is_switch && !fallback.empty()) CHECK_THAT(help, Catch::Contains("default: " + fallback + "]"));
  }
  const auto record = lane::train::settings_record(defaults);
  CHECK(record.size() == settings.size());
  for (const auto& key : keys) CHECK(record.contains(key));
  // Spot checks of the texts the defaults make.
  auto help_of = [&](const std::string& flag) {
    for (const auto& s : settings)
      if (s.flag == flag) return lane::train::setting_help(s);
    return std::string("(no such flag)");
  };
  CHECK(help_of("--batch-size") == "Per-rank batch size [env: BATCH_SIZE, default: 8]");
  CHECK(help_of("--lr") == "Base learning rate [default: 0.025]");
  CHECK(help_of("--train-labels") ==
        "Comma-separated label files in the data dir [default: label_data_0313.json,label_data_0601.json]");
  CHECK(help_of("--scnn-edge").find("[default: orig]") != std::string::npos);
  CHECK(help_of("--data-dir") == "TuSimple root (clips/ + label files) [env: DATA_DIR]");
}

TEST_CASE("nothing given resolves every setting to the TrainConfig default", "[trainer][fast]") {
  const auto resolved = resolve_train_config(with_data(), env_of({}));
  auto expected = lane::train::settings_record(lane::train::TrainConfig{});
  expected["data_dir"] = lane::test::tusimple_dir().string();
  CHECK(lane::train::settings_record(resolved) == expected);
  CHECK_THAT(lane::train::settings_line(resolved),
             Catch::StartsWith("data_dir=" + lane::test::tusimple_dir().string() + " output_dir=output batch_size=8 "));
}

TEST_CASE("every setting with a variable: the variable beats the default, the flag beats the variable", "[trainer][fast]") {
  const std::string data = lane::test::tusimple_dir().string();
  // A value for the variable and a different one for the flag, per variable; a setting with a
  // variable missing here fails the test.
  const std::map<std::string, std::pair<std::string, std::string>> values = {
      {"DATA_DIR", {data, data + "/"}},  {"OUTPUT_DIR", {"/tmp/env-out", "/tmp/flag-out"}},
      {"BATCH_SIZE", {"3", "5"}},        {"VAL_BATCH_SIZE", {"6", "7"}},
      {"EPOCHS", {"2", "9"}},            {"NUM_WORKERS", {"2", "3"}},
      {"USE_WORKERS", {"true", "false"}}, {"USE_VAL", {"true", "false"}},
      {"OMP_NUM_THREADS", {"3", "2"}},   {"DEVICE", {"cpu", "cuda:1"}},
      {"PRECISION", {"bf16", "fp32"}},     {"MEMORY_FORMAT", {"contiguous", "channels_last"}},
      {"MEMORY_CHECK", {"off", "on"}},     {"MEMORY_LIMIT", {"6Gi", "500M"}},
      {"RESUME", {"auto", "on"}},
  };
  const auto defaults = lane::train::settings_record(lane::train::TrainConfig{});
  for (const auto& s : lane::train::train_settings()) {
    if (s.env.empty()) continue;
    INFO(s.env);
    REQUIRE(values.count(s.env) == 1);
    const auto& [env_value, flag_value] = values.at(s.env);
    auto f = with_data();
    if (s.env == "DATA_DIR") f.erase("--data-dir");
    const auto from_env = resolve_train_config(f, env_of({{s.env, env_value}}));
    CHECK(lane::train::setting_text(s.value(from_env)) == env_value);
    CHECK(s.value(from_env) != defaults[s.key]);
    f[s.flag] = flag_value;
    const auto from_flag = resolve_train_config(f, env_of({{s.env, env_value}}));
    CHECK(lane::train::setting_text(s.value(from_flag)) == flag_value);
  }
  // The device and precision remember where they came from, for device_select's messages.
  auto c = resolve_train_config(with_data(), env_of({{"DEVICE", "cpu"}, {"PRECISION", "bf16"}}));
  CHECK(c.device_source == "environment variable DEVICE");
  CHECK(c.precision_source == "environment variable PRECISION");
  auto f = with_data();
  f["--device"] = "cpu";
  CHECK(resolve_train_config(f, env_of({{"DEVICE", "cuda"}})).device_source == "--device");
}

TEST_CASE("switches set their field, and a flag that is no setting is refused", "[trainer][fast]") {
  auto f = with_data();
  for (const char* flag : {"--nesterov", "--no-augment", "--freeze-bn", "--skip-bad", "--no-tensorboard"}) f[flag] = "true";
  const auto c = resolve_train_config(f, env_of({}));
  CHECK(c.nesterov);
  CHECK_FALSE(c.augment);
  CHECK(c.freeze_bn);
  CHECK(c.skip_bad);
  CHECK_FALSE(c.tensorboard);
  f = with_data();
  f["--batchsize"] = "4";
  CHECK_THROWS_WITH(resolve_train_config(f, env_of({})), Catch::Contains("--batchsize"));
}

TEST_CASE("RESUME and --resume take off, on or auto, and anything else is refused by name", "[trainer][fast]") {
  CHECK(resolve_train_config(with_data(), env_of({})).resume == lane::train::ResumeMode::kOff);
  auto f = with_data();
  f["--resume"] = "on";  // what the command line passes for the flag alone
  CHECK(resolve_train_config(f, env_of({})).resume == lane::train::ResumeMode::kOn);
  const auto c = resolve_train_config(with_data(), env_of({{"RESUME", "auto"}}));
  CHECK(c.resume == lane::train::ResumeMode::kAuto);
  CHECK(c.resume_source == "environment variable RESUME");
  f["--resume"] = "yes";
  CHECK_THROWS_WITH(resolve_train_config(f, env_of({})), Catch::Contains("--resume: 'yes' is not off, on or auto"));
  CHECK_THROWS_WITH(resolve_train_config(with_data(), env_of({{"RESUME", "1"}})),
                    Catch::Contains("RESUME: '1' is not off, on or auto"));
}

TEST_CASE("training_differences names the settings that change training and skips the others", "[trainer][fast]") {
  const TrainConfig base = resolve_train_config(with_data(), env_of({}));
  const nlohmann::json record = settings_record(base);
  CHECK(training_differences(record, base).empty());
  // Where the run lives and how it runs: not a different run.
  auto f = with_data();
  for (const auto& [flag, value] : std::map<std::string, std::string>{{"--threads", "3"},
                                                                      {"--output-dir", "elsewhere"},
                                                                      {"--num-workers", "2"},
                                                                      {"--stop-after", "7"},
                                                                      {"--checkpoint-every", "3"},
                                                                      {"--log-every", "5"},
                                                                      {"--memory-check", "off"},
                                                                      {"--device", "cpu"},
                                                                      {"--resume", "auto"}})
    f[flag] = value;
  CHECK(training_differences(record, resolve_train_config(f, env_of({}))).empty());
  // What it trains: named, with both values.
  f["--lr"] = "0.05";
  f["--epochs"] = "3";
  const auto differences = training_differences(record, resolve_train_config(f, env_of({})));
  REQUIRE(differences.size() == 2);
  CHECK(differences[0] == "epochs: 12 there, 3 here");
  CHECK(differences[1] == "lr: 0.025 there, 0.05 here");
  // A record from an older version without a key: that key is not compared.
  nlohmann::json older = record;
  older.erase("lr");
  CHECK(training_differences(older, resolve_train_config(f, env_of({}))) ==
        std::vector<std::string>{"epochs: 12 there, 3 here"});
}

TEST_CASE("real settings refuse inf and nan, and momentum must stay below 1", "[trainer][fast]") {
  for (const char* text : {"inf", "-inf", "nan", "1e999"}) {
    auto f = with_data();
    f["--lr"] = text;
    CHECK_THROWS_WITH(resolve_train_config(f, env_of({})), Catch::Contains("--lr"));
  }
  auto f = with_data();
  f["--momentum"] = "1";
  CHECK_THROWS_WITH(resolve_train_config(f, env_of({})), Catch::Contains("--momentum: 1 must be below 1"));
  f["--momentum"] = "0.99";
  CHECK(resolve_train_config(f, env_of({})).momentum == 0.99);
}

TEST_CASE("the image's entrypoint forwards every train variable to the ranks it starts over ssh", "[trainer][fast]") {
  // images/scnn-train/entrypoint.sh: mpirun -x for each name of its forwarded list that is set.
  const std::string script = lane::read_file(std::string(LANE_SOURCE_DIR) + "/images/scnn-train/entrypoint.sh");
  const auto start = script.find("forwarded=\"");
  REQUIRE(start != std::string::npos);
  const std::string list = " " + script.substr(start + 11, script.find('"', start + 11) - start - 11) + " ";
  std::string words;
  for (char ch : list) words += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
  for (const auto& s : lane::train::train_settings()) {
    if (s.env.empty()) continue;
    INFO(s.env);
    CHECK(words.find(" " + s.env + " ") != std::string::npos);
  }
}
