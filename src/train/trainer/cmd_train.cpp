// scnn-train train: the settings of train_settings.h as flags (or the seed workflow's environment
// variables) → TrainConfig → the training loop, then the end-of-training snapshot.
#include <string>

#include "common/run_outputs.h"
#include "train/commands.h"
#include "train/trainer/after_training.h"
#include "train/trainer/train_settings.h"
#include "train/trainer/trainer.h"

namespace lane::train {

namespace {

std::string footer() {
  std::string vars;
  for (const auto& s : train_settings())
    if (!s.env.empty()) vars += " " + s.env;
  return "Environment (flags win):" + vars + ". Outputs in the output dir: " + std::string(RunLayout::kMetrics) +
         ", " + std::string(RunLayout::kLatestCheckpoint) + ", " + std::string(RunLayout::kBestCheckpoint) +
         " (with validation), " + std::string(RunLayout::kCurves) + ".";
}

// The value's type for --help, from the setting's default: INT, FLOAT, BOOL (true|false), LIST
// (a,b,...), DIR for the folders, else TEXT.
std::string type_name(const TrainSetting& s) {
  const nlohmann::json value = s.value(TrainConfig{});
  if (value.is_number_integer()) return "INT";
  if (value.is_number_float()) return "FLOAT";
  if (value.is_boolean()) return "BOOL";
  if (value.is_array()) return "LIST";
  return s.flag.size() > 4 && s.flag.compare(s.flag.size() - 4, 4, "-dir") == 0 ? "DIR" : "TEXT";
}

// The flags given, as resolve_train_config takes them.
TrainFlags given_flags(const CLI::App& cmd) {
  TrainFlags flags;
  for (const auto& s : train_settings()) {
    const CLI::Option* option = cmd.get_option(s.flag);
    if (option->count() == 0) continue;
    flags[s.flag] = s.is_switch ? (option->as<bool>() ? "true" : "false") : option->as<std::string>();
  }
  return flags;
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train SCNN on TuSimple (single process or under mpirun)");
  cmd->footer(footer());
  for (const auto& s : train_settings()) {
    CLI::Option* option = s.is_switch ? cmd->add_flag(s.flag) : cmd->add_option(s.flag);
    option->description(setting_help(s));
    if (!s.is_switch) option->type_name(type_name(s));
  }
  cmd->callback([cmd] { run_training(resolve_train_config(given_flags(*cmd), process_environment()), after_training); });
}

}  // namespace lane::train
