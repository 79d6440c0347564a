// scnn-train train, predict and export: their flags (train's from train_settings.h) and checks.
#include <memory>
#include <optional>
#include <string>

#include "common/run_outputs.h"
#include "train/commands/verb_groups.h"
#include "train/config/train_settings.h"

namespace lane::train {

namespace {

std::string train_footer() {
  std::string vars;
  for (const auto& s : train_settings())
    if (!s.env.empty()) vars += " " + s.env;
  return "Environment (flags win):" + vars + ". Outputs in the output dir: " + std::string(RunLayout::kMetrics) +
         ", " + std::string(RunLayout::kLatestCheckpoint) + ", " + std::string(RunLayout::kBestCheckpoint) +
         " (with validation), " + std::string(RunLayout::kCurves) + ".";
}

// The value's type for --help (MODE for --resume), else from the default: INT, FLOAT, BOOL (true|false), LIST
// (a,b,...), DIR for the folders, else TEXT.
std::string type_name(const TrainSetting& s) {
  if (!s.bare_value.empty()) return "MODE";  // its help says what the flag alone means
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
    if (s.is_switch)
      flags[s.flag] = option->as<bool>() ? "true" : "false";
    else if (!s.bare_value.empty() && option->as<std::string>().empty())
      flags[s.flag] = s.bare_value;  // given alone: --resume
    else
      flags[s.flag] = option->as<std::string>();
  }
  return flags;
}

void add_train(CLI::App& app, const std::function<void(const TrainConfig&)>& run) {
  auto* cmd = app.add_subcommand("train", "Train SCNN on TuSimple (single process or under mpirun)");
  cmd->footer(train_footer());
  for (const auto& s : train_settings()) {
    CLI::Option* option = s.is_switch ? cmd->add_flag(s.flag) : cmd->add_option(s.flag);
    option->description(setting_help(s));
    if (!s.is_switch) option->type_name(type_name(s));
    if (!s.bare_value.empty()) option->expected(0, 1);
  }
  cmd->callback([cmd, run] { run(resolve_train_config(given_flags(*cmd), process_environment())); });
}

// A number from 0 to 1, described as CLI::Range(0.0, 1.0) is; unlike it, "nan" is refused.
CLI::Validator probability() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= 0.0 && v <= 1.0))
          return "Value " + text + " is not a number from 0 to 1";
        return {};
      },
      CLI::Range(0.0, 1.0).get_description());
}

// The post-processing overrides of predict (inference.cpp has the values used without them).
void add_postprocess_flags(CLI::App& cmd, PredictOptions& o) {
  cmd.add_option("--prob-threshold", o.prob_threshold, "Post-processing: minimum lane probability of a point")
      ->check(probability());
  cmd.add_option("--exist-threshold", o.exist_threshold, "Post-processing: minimum existence probability of a lane")
      ->check(probability());
  cmd.add_option("--fill-gaps", o.fill_gaps, "Post-processing: 1 interpolates rows between detected points, 0 not")
      ->check(CLI::Range(0, 1));
  cmd.add_option("--relative-threshold", o.relative_threshold,
                 "Post-processing: a point also needs this share of its lane's median peak probability")
      ->check(probability());
  cmd.add_option("--lane-fit", o.lane_fit,
                 "Post-processing: degree of the robust polynomial x(y) each lane is resampled on (0 = off, "
                 "points as decoded)")
      ->check(CLI::Range(0, 3));
  cmd.add_option("--lane-fit-extend", o.lane_fit_extend,
                 "Post-processing: h_samples the lane fit also fills beyond each end of a lane")
      ->check(CLI::Range(0, 56));
  cmd.add_option("--border-columns", o.border_columns,
                 "Post-processing: a row whose peak is within this many map columns of the side borders has no "
                 "point (0 = keep)")
      ->check(CLI::Range(0, 64));
  cmd.add_option("--max-gap-rows", o.max_gap_rows,
                 "Post-processing: gap filling and the lane fit fill at most this many missing h_samples between "
                 "two detected points of a lane; longer gaps stay empty (-1 = fill every gap)")
      ->check(CLI::Range(-1, 100));
}

void add_predict(CLI::App& app, const std::function<void(const PredictOptions&)>& run) {
  auto* cmd = app.add_subcommand("predict", "Run a checkpoint on frames: TuSimple json-lines and overlays");
  auto o = std::make_shared<PredictOptions>();
  auto threads = std::make_shared<std::optional<std::string>>();
  auto device = std::make_shared<std::optional<std::string>>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint_latest.pt or checkpoint_best.pt")->required();
  cmd->add_option("--input", o->input, "An image, or a folder searched recursively for .jpg/.png")->required();
  cmd->add_option("--out", o->out_dir, "Output folder: predictions.json and overlays/")->required();
  cmd->add_option("--raw-root", o->raw_root, "raw_file in the json is relative to this [default: the input folder]");
  cmd->add_option("--labels", o->labels,
                  "TuSimple label file: overlays then show ground truth and each lane as matched, missed or false "
                  "positive (official rule)")
      ->check(CLI::ExistingFile);
  add_postprocess_flags(*cmd, *o);
  cmd->add_flag_callback("--no-tensorboard", [o] { o->tensorboard = false; },
                         "Write no TensorBoard event file of the first overlays into --out");
  cmd->add_option("--device", *device,
                  "auto|cpu|cuda|cuda:N; auto: CUDA when built with it and a GPU is visible [env: DEVICE, default: auto]");
  cmd->add_option("--threads", *threads, "Intra-op threads [env: OMP_NUM_THREADS, default: libtorch's]")->type_name("INT");
  cmd->callback([o, threads, device, run] {
    // The flag, else the variable, as scnn-train train reads its settings.
    const auto env = process_environment();
    if (auto s = pick_setting(*device, "--device", env, "DEVICE")) {
      o->device = s->text;
      o->device_source = s->name;
    }
    if (auto s = pick_setting(*threads, "--threads", env, "OMP_NUM_THREADS"))
      o->threads = static_cast<int>(parse_int(s->text, s->name, 1));
    run(*o);
  });
}

void add_export(CLI::App& app, const std::function<void(const ExportOptions&)>& run) {
  auto* cmd = app.add_subcommand("export", "Write a checkpoint's network as a TorchScript module (torch.jit.load)");
  auto o = std::make_shared<ExportOptions>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint_best.pt or checkpoint_latest.pt")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "TorchScript file to write, e.g. scnn_lane.torchscript.pt")->required();
  cmd->callback([o, run] { run(*o); });
}

}  // namespace

void add_training_verbs(CLI::App& app, const Verbs& verbs) {
  if (verbs.train) add_train(app, verbs.train);
  if (verbs.predict) add_predict(app, verbs.predict);
  if (verbs.export_model) add_export(app, verbs.export_model);
}

}  // namespace lane::train
