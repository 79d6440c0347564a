#pragma once
// scnn-train train configuration: the settings with their defaults (TrainConfig), resolved from
// flags first, then the seed workflow's environment variables (BATCH_SIZE, NUM_WORKERS,
// USE_WORKERS, USE_VAL, VAL_BATCH_SIZE, EPOCHS, DATA_DIR, OUTPUT_DIR, ...), then the defaults.
// How each setting is given and checked is in train_settings.h. No libtorch here.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "train/config/scnn_config.h"

namespace lane::train {

// --resume / RESUME (see TrainConfig::resume).
enum class ResumeMode { kOff, kOn, kAuto };

// Every training setting with its default (train_settings.h declares how each is given).
struct TrainConfig {
  std::filesystem::path data_dir;
  std::filesystem::path output_dir = "output";
  std::vector<std::string> train_labels{"label_data_0313.json", "label_data_0601.json"};
  std::vector<std::string> val_labels{"label_data_0531.json"};

  std::string model_name = "full";  // full | small
  model::ScnnConfig model;          // num_classes, input size, width
  int crop_top = 0;                 // rows of the 720-row frame dropped before resizing
  bool augment = true;
  bool freeze_bn = false;           // BN uses its running statistics while training (see Scnn)
  std::string pretrained;           // optional VGG16-BN ImageNet weights (see docs/training.md)

  int batch_size = 8;
  int val_batch_size = 8;
  int epochs = 12;
  int64_t max_steps = 0;            // 0: epochs × batches per epoch; otherwise the run (and the
                                    // LR schedule) ends after this many steps
  int64_t stop_after = 0;           // > 0: stop (with a checkpoint) once this step is reached, as a
                                    // preempted job would; the schedule is unchanged, --resume continues
  bool use_workers = false;
  int num_workers = 4;
  bool use_val = false;
  bool skip_bad = false;

  // Optimiser and schedule: SGD + poly decay with linear warm-up (docs/training.md).
  double lr = 0.025;
  double momentum = 0.9;
  double weight_decay = 1e-4;
  bool nesterov = false;
  double poly_power = 0.9;
  // 20 as the seed's Horovod recipe (HH's PolyLR): the full network from scratch at lr 0.025
  // diverged at its second step without warm-up (docs/training.md, "Loss and optimiser").
  int64_t warmup_steps = 20;
  double background_weight = 0.4;
  double exist_weight = 0.1;

  int log_every = 10;
  bool tensorboard = true;          // TensorBoard event files beside metrics.jsonl
  int64_t checkpoint_every = 500;
  int threads = 0;                  // 0: libtorch's default
  uint64_t seed = 1;
  // off: start at step 0. on: continue from <output_dir>/checkpoint_latest.pt (it must exist).
  // auto: continue when that checkpoint was saved by a run with the same training settings
  // (train_settings.h: changes_training), else start at step 0 (no checkpoint) or refuse (other
  // settings): what a job that a scheduler restarts after preemption needs.
  ResumeMode resume = ResumeMode::kOff;
  std::string resume_source = "--resume";
  // Device and precision requests (resolved at start-up by train/device/device_select.h) and the
  // flag or variable they came from, for error messages.
  std::string device = "auto", device_source = "--device";
  std::string precision, precision_source = "--precision";  // empty: the device's default
  std::string memory_format = "auto";  // auto (channels_last on GPUs, contiguous on CPUs) | channels_last | contiguous
  // The memory check before training (memory_check.h): on refuses a run whose estimate exceeds
  // the limit, off only reports it. memory_limit: bytes this rank may use (a quantity: 6Gi),
  // empty: the cgroup's and the host's limits alone.
  std::string memory_check = "on";
  std::string memory_limit, memory_limit_source = "--memory-limit";
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_environment();

// A setting's text and where it came from ("--batch-size" or "environment variable BATCH_SIZE").
struct SettingSource {
  std::string text, name;
};
// The flag when given, else the environment variable (none when env_name is empty), else nothing.
std::optional<SettingSource> pick_setting(const std::optional<std::string>& flag, const std::string& flag_name,
                                          const EnvLookup& env, const std::string& env_name);

// Parsing helpers shared with predict; `source` names the flag or variable in errors.
int64_t parse_int(const std::string& text, const std::string& source, int64_t min_value);
double parse_double(const std::string& text, const std::string& source);
bool parse_bool(const std::string& text, const std::string& source);

}  // namespace lane::train
