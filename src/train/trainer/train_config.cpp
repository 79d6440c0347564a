#include "train/trainer/train_config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::train {
namespace fs = std::filesystem;

int64_t parse_int(const std::string& text, const std::string& source, int64_t min_value) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || std::isspace(static_cast<unsigned char>(text[0])))
    throw UsageError(fmt::format("{}: '{}' is not an integer", source, text));
  if (v < min_value)
    throw UsageError(fmt::format("{}: {} is too small (must be at least {})", source, v, min_value));
  return v;
}

double parse_double(const std::string& text, const std::string& source) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v == v))
    throw UsageError(fmt::format("{}: '{}' is not a number", source, text));
  return v;
}

bool parse_bool(const std::string& text, const std::string& source) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "true" || t == "1" || t == "yes") return true;
  if (t == "false" || t == "0" || t == "no") return false;
  throw UsageError(fmt::format("{}: '{}' is not a boolean (use true or false)", source, text));
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::optional<SettingSource> pick_setting(const std::optional<std::string>& flag, const std::string& flag_name,
                                          const EnvLookup& env, const std::string& env_name) {
  if (flag) return SettingSource{*flag, flag_name};
  if (!env_name.empty())
    if (auto v = env(env_name)) return SettingSource{*v, "environment variable " + env_name};
  return std::nullopt;
}

namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& source) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw UsageError(fmt::format("{}: empty list of label files", source));
  return out;
}

void require_label_files(const fs::path& dir, const std::vector<std::string>& files, const std::string& flag) {
  for (const auto& f : files)
    if (!fs::is_regular_file(dir / f))
      throw UsageError(fmt::format("{}: label file '{}' not found in the data directory '{}' "
                                   "(pass the files with {} a,b,...)", flag, f, dir.string(), flag));
}

}  // namespace

TrainConfig resolve_train_config(const TrainFlags& f, const EnvLookup& env) {
  TrainConfig c;
  auto int_setting = [&](const std::optional<std::string>& flag, const std::string& flag_name,
                         const std::string& env_name, int64_t min_value, auto& target) {
    if (auto s = pick_setting(flag, flag_name, env, env_name))
      target = static_cast<std::decay_t<decltype(target)>>(parse_int(s->text, s->name, min_value));
  };
  auto double_setting = [&](const std::optional<std::string>& flag, const std::string& flag_name,
                            double& target, bool positive) {
    if (!flag) return;
    target = parse_double(*flag, flag_name);
    if (positive ? !(target > 0) : target < 0)
      throw UsageError(fmt::format("{}: {} must be {}", flag_name, *flag, positive ? "> 0" : ">= 0"));
  };

  if (auto s = pick_setting(f.model, "--model", env, "")) {
    c.model_name = s->text;
  }
  c.model = model::model_preset(c.model_name, "--model");
  int_setting(f.num_classes, "--num-classes", "", 2, c.model.num_classes);
  int_setting(f.input_height, "--input-height", "", 16, c.model.input_height);
  int_setting(f.input_width, "--input-width", "", 16, c.model.input_width);
  if (f.width_mult) c.model.width_mult = parse_double(*f.width_mult, "--width-mult");
  if (f.scnn_edge) {
    if (*f.scnn_edge == "orig") c.model.update_first_slice = true;
    else if (*f.scnn_edge == "pad") c.model.update_first_slice = false;
    else throw UsageError(fmt::format("--scnn-edge: '{}' is not 'orig' or 'pad'", *f.scnn_edge));
  }
  if (f.dropout) {
    c.model.dropout = parse_double(*f.dropout, "--dropout");
    if (!(c.model.dropout >= 0.0 && c.model.dropout < 1.0))
      throw UsageError(fmt::format("--dropout: {} is outside [0, 1); use 0 to turn dropout off", *f.dropout));
  }
  model::validate(c.model);
  int_setting(f.crop_top, "--crop-top", "", 0, c.crop_top);
  if (c.crop_top >= 700) throw UsageError("--crop-top: must leave rows of the 720-row frame (< 700)");

  int_setting(f.batch_size, "--batch-size", "BATCH_SIZE", 1, c.batch_size);
  int_setting(f.val_batch_size, "--val-batch-size", "VAL_BATCH_SIZE", 1, c.val_batch_size);
  int_setting(f.epochs, "--epochs", "EPOCHS", 1, c.epochs);
  int_setting(f.num_workers, "--num-workers", "NUM_WORKERS", 0, c.num_workers);
  if (auto s = pick_setting(f.use_workers, "--use-workers", env, "USE_WORKERS")) c.use_workers = parse_bool(s->text, s->name);
  if (auto s = pick_setting(f.use_val, "--use-val", env, "USE_VAL")) c.use_val = parse_bool(s->text, s->name);
  if (c.use_workers && c.num_workers < 1)
    throw UsageError("NUM_WORKERS / --num-workers: must be at least 1 when USE_WORKERS is true");
  int_setting(f.max_steps, "--max-steps", "", 0, c.max_steps);
  int_setting(f.stop_after, "--stop-after", "", 0, c.stop_after);
  int_setting(f.log_every, "--log-every", "", 1, c.log_every);
  int_setting(f.checkpoint_every, "--checkpoint-every", "", 1, c.checkpoint_every);
  int_setting(f.warmup_steps, "--warmup-steps", "", 0, c.warmup_steps);
  int_setting(f.threads, "--threads", "", 0, c.threads);
  int_setting(f.seed, "--seed", "", 0, c.seed);
  double_setting(f.lr, "--lr", c.lr, true);
  double_setting(f.momentum, "--momentum", c.momentum, false);
  double_setting(f.weight_decay, "--weight-decay", c.weight_decay, false);
  double_setting(f.poly_power, "--poly-power", c.poly_power, false);
  double_setting(f.background_weight, "--background-weight", c.background_weight, true);
  double_setting(f.exist_weight, "--exist-weight", c.exist_weight, false);
  c.nesterov = f.nesterov;
  c.augment = !f.no_augment;
  c.freeze_bn = f.freeze_bn;
  c.resume = f.resume;
  c.skip_bad = f.skip_bad;
  if (f.pretrained) {
    c.pretrained = *f.pretrained;
    if (!fs::is_regular_file(c.pretrained))
      throw UsageError(fmt::format("--pretrained: '{}' is not a file", c.pretrained));
  }
  if (auto s = pick_setting(f.device, "--device", env, "DEVICE")) { c.device = s->text; c.device_source = s->name; }
  if (auto s = pick_setting(f.precision, "--precision", env, "PRECISION")) { c.precision = s->text; c.precision_source = s->name; }
  if (c.threads == 0)
    if (auto omp = env("OMP_NUM_THREADS"))
      c.threads = static_cast<int>(parse_int(*omp, "environment variable OMP_NUM_THREADS", 1));

  auto data = pick_setting(f.data_dir, "--data-dir", env, "DATA_DIR");
  if (!data || data->text.empty())
    throw UsageError("no data directory: pass --data-dir DIR or set DATA_DIR (the folder with clips/ "
                     "and the label_data_*.json files)");
  c.data_dir = data->text;
  if (!fs::is_directory(c.data_dir))
    throw UsageError(fmt::format("{}: data directory '{}' does not exist", data->name, data->text));
  if (auto out = pick_setting(f.output_dir, "--output-dir", env, "OUTPUT_DIR")) {
    if (out->text.empty()) throw UsageError(out->name + ": empty output directory");
    c.output_dir = out->text;
  }
  if (f.train_labels) c.train_labels = split_list(*f.train_labels, "--train-labels");
  if (f.val_labels) c.val_labels = split_list(*f.val_labels, "--val-labels");
  require_label_files(c.data_dir, c.train_labels, "--train-labels");
  if (c.use_val) require_label_files(c.data_dir, c.val_labels, "--val-labels");
  return c;
}

}  // namespace lane::train
