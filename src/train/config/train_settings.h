#pragma once
// The one list of scnn-train train's settings. Each entry names its TrainConfig field (the key),
// its flag, its environment variable (the seed workflow's, or none), its help and its check; the
// default is the TrainConfig field's. The list drives the command line and `--help` (with the
// real defaults), resolve_train_config, the resolved-settings log line and the checkpoint's
// settings record. Adding a setting: docs/architecture.md#adding-a-training-setting. No libtorch.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/config/train_config.h"

namespace lane::train {

struct TrainSetting {
  std::string key;    // the TrainConfig field: the name in the log line and the settings record
  std::string flag;   // "--batch-size"
  std::string env;    // "BATCH_SIZE"; empty: flag only
  std::string help;
  bool is_switch = false;  // a flag without a value (--nesterov); the others take one
  // Checks the text and stores it; throws lane::UsageError naming source.name and the fix.
  std::function<void(TrainConfig&, const SettingSource&)> apply;
  // The setting's value in a config.
  std::function<nlohmann::json(const TrainConfig&)> value;
  // The value of the flag given without one (--resume alone: "on"); empty: a value is required.
  std::string bare_value;
  // false: the setting does not change what the run trains (threads, folders, logging, memory
  // check), so `--resume auto` continues a run saved with another value of it.
  bool changes_training = true;
};

// The text of the flags given on the command line, by flag ("--batch-size" -> "4"; a switch
// given reads "true").
using TrainFlags = std::map<std::string, std::string>;

// Every setting from its flag, else its environment variable, else the TrainConfig default; then
// the checks across settings, including that the data directory and label files exist. Throws
// lane::UsageError naming the flag or environment variable and the fix (lane::Error for a flag
// that is no setting).
TrainConfig resolve_train_config(const TrainFlags& flags, const EnvLookup& env);

// In the order resolve_train_config applies them (--model before the shape settings it presets).
const std::vector<TrainSetting>& train_settings();

// The help text with the variable and the default: "Per-rank batch size [env: BATCH_SIZE, default: 8]".
std::string setting_help(const TrainSetting& setting);

// A value as the command line would take it: 8, 0.025, true, full, a,b (a list).
std::string setting_text(const nlohmann::json& value);

// {key: value} of every setting: the checkpoint's settings record.
nlohmann::json settings_record(const TrainConfig& config);

// The settings that change what the run trains whose value in `record` (a checkpoint's
// settings_record) differs from `config`'s, as "key: <record's> there, <config's> here". Keys
// the record lacks (an older version's) are not compared.
std::vector<std::string> training_differences(const nlohmann::json& record, const TrainConfig& config);

// "key=value key=value ..." of every setting, in list order: the resolved-settings log line.
std::string settings_line(const TrainConfig& config);

}  // namespace lane::train
