#include "train/config/train_settings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "common/quantity.h"
#include "train/config/scnn_config.h"

namespace lane::train {
namespace fs = std::filesystem;

namespace {

using Apply = std::function<void(TrainConfig&, const SettingSource&)>;

constexpr const char* kNoDataDirectory =
    "no data directory: pass --data-dir DIR or set DATA_DIR (the folder with clips/ and the label_data_*.json files)";

void require_label_files(const fs::path& dir, const std::vector<std::string>& files, const std::string& flag) {
  for (const auto& f : files)
    if (!fs::is_regular_file(dir / f))
      throw UsageError(fmt::format("{}: label file '{}' not found in the data directory '{}' "
                                   "(pass the files with {} a,b,...)", flag, f, dir.string(), flag));
}

// A field of TrainConfig, readable from a const config and writable from a mutable one.
template <class T>
auto field(T TrainConfig::*member) {
  return [member](auto& c) -> auto& { return c.*member; };
}
template <class T>
auto model_field(T model::ScnnConfig::*member) {
  return [member](auto& c) -> auto& { return c.model.*member; };
}

struct Names {
  const char* key;
  const char* flag;
  const char* env;
  const char* help;
};

template <class Field>
TrainSetting setting(const Names& n, Field f, Apply apply) {
  return {n.key, n.flag, n.env, n.help, false, std::move(apply),
          [f](const TrainConfig& c) { return nlohmann::json(f(c)); }, "", true};
}

// An integer of at least `min` that fits its field (an int field refuses 4294967360, which a
// cast would turn into 64).
template <class Field>
TrainSetting integer(const Names& n, int64_t min, Field f) {
  return setting(n, f, [f, min](TrainConfig& c, const SettingSource& s) {
    auto& target = f(c);
    using T = std::decay_t<decltype(target)>;
    const int64_t v = parse_int(s.text, s.name, min);
    if (v > static_cast<int64_t>(std::numeric_limits<T>::max()))
      throw UsageError(fmt::format("{}: {} is too large (at most {})", s.name, v, std::numeric_limits<T>::max()));
    target = static_cast<T>(v);
  });
}

enum class Bound { kAny, kPositive, kNonNegative };

template <class Field>
TrainSetting real(const Names& n, Bound bound, Field f) {
  return setting(n, f, [f, bound](TrainConfig& c, const SettingSource& s) {
    const double v = parse_double(s.text, s.name);
    if (!std::isfinite(v)) throw UsageError(fmt::format("{}: {} is not a finite number", s.name, s.text));
    if ((bound == Bound::kPositive && !(v > 0)) || (bound == Bound::kNonNegative && v < 0))
      throw UsageError(fmt::format("{}: {} must be {}", s.name, s.text, bound == Bound::kPositive ? "> 0" : ">= 0"));
    f(c) = v;
  });
}

// true or false as a value (--use-val false, USE_VAL=true).
template <class Field>
TrainSetting boolean(const Names& n, Field f) {
  return setting(n, f, [f](TrainConfig& c, const SettingSource& s) { f(c) = parse_bool(s.text, s.name); });
}

// A flag without a value: given, it sets the field to `when_given` (--no-augment: augment = false).
template <class Field>
TrainSetting switch_flag(const Names& n, bool when_given, Field f) {
  TrainSetting s = setting(n, f, [f, when_given](TrainConfig& c, const SettingSource& src) {
    f(c) = parse_bool(src.text, src.name) == when_given;
  });
  s.is_switch = true;
  return s;
}

// Text kept as given, after `check`.
template <class Field>
TrainSetting text(const Names& n, Field f, Apply check) {
  return setting(n, f, [f, check](TrainConfig& c, const SettingSource& s) {
    check(c, s);
    f(c) = s.text;
  });
}

TrainSetting path(const Names& n, fs::path TrainConfig::*member, Apply check) {
  return {n.key, n.flag, n.env, n.help, false,
          [member, check](TrainConfig& c, const SettingSource& s) {
            check(c, s);
            c.*member = s.text;
          },
          [member](const TrainConfig& c) { return nlohmann::json((c.*member).string()); }, "", true};
}

// Comma-separated label files in the data directory (their existence is checked once it is known).
TrainSetting label_files(const Names& n, std::vector<std::string> TrainConfig::*member) {
  return setting(n, field(member), [member](TrainConfig& c, const SettingSource& s) {
    std::vector<std::string> files;
    std::stringstream ss(s.text);
    for (std::string item; std::getline(ss, item, ',');)
      if (!item.empty()) files.push_back(item);
    if (files.empty()) throw UsageError(fmt::format("{}: empty list of label files", s.name));
    c.*member = std::move(files);
  });
}

void check_data_dir(TrainConfig&, const SettingSource& s) {
  if (s.text.empty()) throw UsageError(kNoDataDirectory);
  if (!fs::is_directory(s.text))
    throw UsageError(fmt::format("{}: data directory '{}' does not exist", s.name, s.text));
}

void check_output_dir(TrainConfig&, const SettingSource& s) {
  if (s.text.empty()) throw UsageError(s.name + ": empty output directory");
  if (fs::exists(s.text) && !fs::is_directory(s.text))
    throw UsageError(fmt::format("{}: '{}' is a file, not a directory; name a folder (it is created if missing)",
                                 s.name, s.text));
}

void preset_model(TrainConfig& c, const SettingSource& s) { c.model = model::model_preset(s.text, s.name); }

TrainSetting scnn_edge() {
  return {"scnn_edge", "--scnn-edge", "",
          "orig: U/L passes update row/column 0 (ORIG, HH); pad: skip it (PAD, LaneDet)", false,
          [](TrainConfig& c, const SettingSource& s) {
            if (s.text != "orig" && s.text != "pad")
              throw UsageError(fmt::format("{}: '{}' is not 'orig' or 'pad'", s.name, s.text));
            c.model.update_first_slice = s.text == "orig";
          },
          [](const TrainConfig& c) { return nlohmann::json(c.model.update_first_slice ? "orig" : "pad"); },
          "", true};
}

void check_dropout(TrainConfig& c, const SettingSource& s) {
  if (!(c.model.dropout >= 0.0 && c.model.dropout < 1.0))
    throw UsageError(fmt::format("{}: {} is outside [0, 1); use 0 to turn dropout off", s.name, s.text));
}

void check_crop_top(TrainConfig& c, const SettingSource& s) {
  if (c.crop_top >= 700) throw UsageError(s.name + ": must leave rows of the 720-row frame (< 700)");
}

void check_memory_format(TrainConfig&, const SettingSource& s) {
  if (s.text != "auto" && s.text != "channels_last" && s.text != "contiguous")
    throw UsageError(fmt::format("{}: '{}' is not auto, channels_last or contiguous", s.name, s.text));
}

void check_memory_check(TrainConfig&, const SettingSource& s) {
  if (s.text != "on" && s.text != "off") throw UsageError(fmt::format("{}: '{}' is not on or off", s.name, s.text));
}

void check_memory_limit(TrainConfig&, const SettingSource& s) {
  const auto bytes = parse_quantity_bytes(s.text);
  if (!bytes || *bytes == 0)
    throw UsageError(fmt::format("{}: '{}' is not a memory size (use e.g. 6Gi, 6G or 6442450944)", s.name, s.text));
}

void check_pretrained(TrainConfig&, const SettingSource& s) {
  if (!fs::is_regular_file(s.text)) throw UsageError(fmt::format("{}: '{}' is not a file", s.name, s.text));
}

void check_momentum(TrainConfig& c, const SettingSource& s) {
  if (c.momentum >= 1.0)
    throw UsageError(fmt::format("{}: {} must be below 1 (0.9 is usual; 0 turns momentum off)", s.name, s.text));
}

// A setting that does not change what the run trains: `--resume auto` ignores it.
TrainSetting run_only(TrainSetting s) {
  s.changes_training = false;
  return s;
}

// --resume [off|on|auto] / RESUME; the flag alone means on.
TrainSetting resume_setting() {
  TrainSetting s{"resume", "--resume", "RESUME",
                 "off: start at step 0; on (the flag alone): continue from <output-dir>/checkpoint_latest.pt; "
                 "auto: continue it when its run had the same training settings, start at step 0 when there is "
                 "none (for jobs that are restarted after preemption)",
                 false,
                 [](TrainConfig& c, const SettingSource& src) {
                   if (src.text == "off") c.resume = ResumeMode::kOff;
                   else if (src.text == "on") c.resume = ResumeMode::kOn;
                   else if (src.text == "auto") c.resume = ResumeMode::kAuto;
                   else throw UsageError(fmt::format("{}: '{}' is not off, on or auto", src.name, src.text));
                   c.resume_source = src.name;
                 },
                 [](const TrainConfig& c) {
                   return nlohmann::json(c.resume == ResumeMode::kOn     ? "on"
                                         : c.resume == ResumeMode::kAuto ? "auto"
                                                                         : "off");
                 },
                 /*bare_value=*/"on",
                 /*changes_training=*/false};
  return s;
}

// A setting followed by a check of the stored value.
TrainSetting then_check(TrainSetting s, Apply check) {
  s.apply = [apply = std::move(s.apply), check = std::move(check)](TrainConfig& c, const SettingSource& src) {
    apply(c, src);
    check(c, src);
  };
  return s;
}

// The device and precision requests remember where they came from, for device_select's errors.
TrainSetting request(const Names& n, std::string TrainConfig::*value, std::string TrainConfig::*source) {
  return setting(n, field(value), [value, source](TrainConfig& c, const SettingSource& s) {
    c.*value = s.text;
    c.*source = s.name;
  });
}

using C = TrainConfig;
using M = model::ScnnConfig;

std::vector<TrainSetting> data_settings() {
  return {
      run_only(path({"data_dir", "--data-dir", "DATA_DIR", "TuSimple root (clips/ + label files)"}, &C::data_dir,
                    check_data_dir)),
      run_only(path({"output_dir", "--output-dir", "OUTPUT_DIR", "Checkpoints, metrics, curves"}, &C::output_dir,
                    check_output_dir)),
      integer({"batch_size", "--batch-size", "BATCH_SIZE", "Per-rank batch size"}, 1, field(&C::batch_size)),
      run_only(integer({"val_batch_size", "--val-batch-size", "VAL_BATCH_SIZE", "Validation batch size"}, 1,
                       field(&C::val_batch_size))),
      integer({"epochs", "--epochs", "EPOCHS", "Epochs"}, 1, field(&C::epochs)),
      run_only(integer({"num_workers", "--num-workers", "NUM_WORKERS", "Data loader worker threads"}, 0,
                       field(&C::num_workers))),
      run_only(boolean({"use_workers", "--use-workers", "USE_WORKERS", "true: decode in worker threads"},
                       field(&C::use_workers))),
      run_only(boolean({"use_val", "--use-val", "USE_VAL", "true: validate every epoch"}, field(&C::use_val))),
      label_files({"train_labels", "--train-labels", "", "Comma-separated label files in the data dir"},
                  &C::train_labels),
      run_only(label_files({"val_labels", "--val-labels", "", "Comma-separated validation label files"},
                           &C::val_labels)),
  };
}

std::vector<TrainSetting> model_settings() {
  return {
      // --model first: it presets the shape that the next settings adjust.
      text({"model", "--model", "", "full (VGG16 SCNN) or small (channels / 8, for CPU demos)"},
           field(&C::model_name), preset_model),
      integer({"num_classes", "--num-classes", "", "Segmentation classes incl. background: 7 or 5"}, 2,
              model_field(&M::num_classes)),
      integer({"input_height", "--input-height", "", "Network input height, multiple of 8"}, 16,
              model_field(&M::input_height)),
      integer({"input_width", "--input-width", "", "Network input width, multiple of 8"}, 16,
              model_field(&M::input_width)),
      real({"width_mult", "--width-mult", "", "Channel multiplier overriding the --model preset"}, Bound::kAny,
           model_field(&M::width_mult)),
      scnn_edge(),
      then_check(integer({"crop_top", "--crop-top", "", "Rows cut off the 720-row frame before resizing"}, 0,
                         field(&C::crop_top)),
                 check_crop_top),
      text({"pretrained", "--pretrained", "", "ImageNet VGG16-BN features state dict (see docs/training.md)"},
           field(&C::pretrained), check_pretrained),
  };
}

std::vector<TrainSetting> optimiser_settings() {
  return {
      real({"lr", "--lr", "", "Base learning rate"}, Bound::kPositive, field(&C::lr)),
      then_check(real({"momentum", "--momentum", "", "SGD momentum, in [0, 1)"}, Bound::kNonNegative,
                      field(&C::momentum)),
                 check_momentum),
      real({"weight_decay", "--weight-decay", "", "Weight decay"}, Bound::kNonNegative, field(&C::weight_decay)),
      switch_flag({"nesterov", "--nesterov", "", "Nesterov momentum (ORIG, HH)"}, true, field(&C::nesterov)),
      real({"poly_power", "--poly-power", "", "Poly LR decay power"}, Bound::kNonNegative, field(&C::poly_power)),
      real({"background_weight", "--background-weight", "",
            "Cross-entropy weight of the background class; lanes weigh 1"},
           Bound::kPositive, field(&C::background_weight)),
      real({"exist_weight", "--exist-weight", "", "Weight of the lane-existence BCE in the loss"},
           Bound::kNonNegative, field(&C::exist_weight)),
      integer({"warmup_steps", "--warmup-steps", "", "Linear LR warm-up steps"}, 0, field(&C::warmup_steps)),
      integer({"max_steps", "--max-steps", "",
               "End the run (and the LR schedule) after this many steps, or when the epochs end first; 0: epochs "
               "x batches per epoch"},
              0, field(&C::max_steps)),
      run_only(integer({"stop_after", "--stop-after", "",
                        "Stop with a checkpoint at this step, like a preempted job; 0: never"},
                       0, field(&C::stop_after))),
      switch_flag({"augment", "--no-augment", "", "Disable the training augmentation"}, false, field(&C::augment)),
      then_check(real({"dropout", "--dropout", "", "Dropout2d probability before the classifier, 0 = off"},
                      Bound::kAny, model_field(&M::dropout)),
                 check_dropout),
      switch_flag({"freeze_bn", "--freeze-bn", "",
                   "BatchNorm keeps its running statistics while training (with --dropout 0: N ranks x batch B = "
                   "1 rank x batch N*B)"},
                  true, field(&C::freeze_bn)),
  };
}

std::vector<TrainSetting> run_settings() {
  return {
      switch_flag({"skip_bad", "--skip-bad", "", "Skip unreadable frames and malformed label lines"}, true,
                  field(&C::skip_bad)),
      run_only(integer({"log_every", "--log-every", "", "Progress line every N steps"}, 1, field(&C::log_every))),
      run_only(switch_flag({"tensorboard", "--no-tensorboard", "",
                            "Write no TensorBoard event files (events.out.tfevents.*) beside metrics.jsonl"},
                           false, field(&C::tensorboard))),
      run_only(integer({"checkpoint_every", "--checkpoint-every", "", "Checkpoint every N steps"}, 1,
                       field(&C::checkpoint_every))),
      run_only(integer({"threads", "--threads", "OMP_NUM_THREADS", "Intra-op threads; 0: libtorch's default"}, 0,
                       field(&C::threads))),
      integer({"seed", "--seed", "", "Seed for init, shuffling and augmentation"}, 0, field(&C::seed)),
      run_only(request({"device", "--device", "DEVICE", "auto, cpu, cuda (the GPU of this local rank) or cuda:N"},
                       &C::device, &C::device_source)),
      request({"precision", "--precision", "PRECISION",
               "fp32 (strict, no TF32), tf32 (GPU), bf16 or fp16 (GPU, loss scaling); unset: bf16 where the GPU "
               "or CPU has it, else fp16 on GPUs, fp32 on CPUs"},
              &C::precision, &C::precision_source),
      run_only(text({"memory_format", "--memory-format", "MEMORY_FORMAT",
                     "Feature-map layout: channels_last (NHWC), contiguous (NCHW) or auto: channels_last on GPUs, "
                     "contiguous on CPUs"},
                    field(&C::memory_format), check_memory_format)),
      run_only(text({"memory_check", "--memory-check", "MEMORY_CHECK",
                     "on: stop before training when the estimated peak memory exceeds what this rank may use; off: "
                     "only report it"},
                    field(&C::memory_check), check_memory_check)),
      run_only(then_check(request({"memory_limit", "--memory-limit", "MEMORY_LIMIT",
                                   "Memory this rank may use (6Gi, 6G); unset: the cgroup limit and MemAvailable, "
                                   "shared by the ranks of the host"},
                                  &C::memory_limit, &C::memory_limit_source),
                          check_memory_limit)),
      resume_setting(),
  };
}

std::vector<TrainSetting> all_settings() {
  std::vector<TrainSetting> all;
  for (auto group : {data_settings(), model_settings(), optimiser_settings(), run_settings()})
    for (auto& s : group) all.push_back(std::move(s));
  return all;
}

// The checks that need several settings, after all are applied.
void check_across_settings(const TrainConfig& c) {
  model::validate(c.model);
  if (c.use_workers && c.num_workers < 1)
    throw UsageError("NUM_WORKERS / --num-workers: must be at least 1 when USE_WORKERS is true");
  if (c.data_dir.empty()) throw UsageError(kNoDataDirectory);
  require_label_files(c.data_dir, c.train_labels, "--train-labels");
  if (c.use_val) require_label_files(c.data_dir, c.val_labels, "--val-labels");
}

}  // namespace

const std::vector<TrainSetting>& train_settings() {
  static const std::vector<TrainSetting> settings = all_settings();
  return settings;
}

TrainConfig resolve_train_config(const TrainFlags& flags, const EnvLookup& env) {
  for (const auto& given : flags) {
    const std::string& flag = given.first;  // a structured binding: C++17 lambdas cannot capture it
    if (std::none_of(train_settings().begin(), train_settings().end(), [&](const auto& s) { return s.flag == flag; }))
      throw Error(fmt::format("{} is not a train setting", flag));
  }
  TrainConfig c;
  for (const TrainSetting& s : train_settings()) {
    const auto given = flags.find(s.flag);
    const auto flag = given == flags.end() ? std::nullopt : std::optional<std::string>(given->second);
    if (auto source = pick_setting(flag, s.flag, env, s.env)) s.apply(c, *source);
  }
  check_across_settings(c);
  return c;
}

std::string setting_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array()) return value.dump();
  std::string out;
  for (const auto& item : value) out += (out.empty() ? "" : ",") + setting_text(item);
  return out;
}

std::string setting_help(const TrainSetting& s) {
  std::string note = s.env.empty() ? "" : "env: " + s.env;
  const std::string fallback = s.is_switch ? "" : setting_text(s.value(TrainConfig{}));
  if (!fallback.empty()) note += (note.empty() ? "default: " : ", default: ") + fallback;
  return note.empty() ? s.help : fmt::format("{} [{}]", s.help, note);
}

nlohmann::json settings_record(const TrainConfig& config) {
  nlohmann::json record = nlohmann::json::object();
  for (const auto& s : train_settings()) record[s.key] = s.value(config);
  return record;
}

std::vector<std::string> training_differences(const nlohmann::json& record, const TrainConfig& config) {
  std::vector<std::string> differences;
  for (const auto& s : train_settings()) {
    if (!s.changes_training || !record.is_object() || !record.contains(s.key)) continue;
    const nlohmann::json here = s.value(config);
    if (record[s.key] != here)
      differences.push_back(
          fmt::format("{}: {} there, {} here", s.key, setting_text(record[s.key]), setting_text(here)));
  }
  return differences;
}

std::string settings_line(const TrainConfig& config) {
  std::string line;
  for (const auto& s : train_settings())
    line += fmt::format("{}{}={}", line.empty() ? "" : " ", s.key, setting_text(s.value(config)));
  return line;
}

}  // namespace lane::train
