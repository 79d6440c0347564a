// scnn-train predict: checkpoint + frames → TuSimple json-lines and overlay PNGs.
#include <memory>
#include <optional>

#include "common/error.h"
#include "train/commands.h"
#include "train/trainer/predictor.h"
#include "train/trainer/train_config.h"

namespace lane::train {

void add_predict_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("predict", "Run a checkpoint on frames: TuSimple json-lines and overlays");
  auto o = std::make_shared<PredictOptions>();
  auto threads = std::make_shared<std::optional<std::string>>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint_latest.pt or checkpoint_best.pt")->required();
  cmd->add_option("--input", o->input, "An image, or a folder searched recursively for .jpg/.png")->required();
  cmd->add_option("--out", o->out_dir, "Output folder: predictions.json and overlays/")->required();
  cmd->add_option("--raw-root", o->raw_root, "raw_file in the json is relative to this [default: the input folder]");
  cmd->add_option("--labels", o->labels,
                  "TuSimple label file: overlays then show ground truth and each lane as matched, missed or false "
                  "positive (official rule)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--prob-threshold", o->prob_threshold, "Post-processing: minimum lane probability of a point")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--exist-threshold", o->exist_threshold, "Post-processing: minimum existence probability of a lane")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--fill-gaps", o->fill_gaps, "Post-processing: 1 interpolates rows between detected points, 0 not")
      ->check(CLI::Range(0, 1));
  cmd->add_option("--relative-threshold", o->relative_threshold,
                  "Post-processing: a point also needs this share of its lane's median peak probability")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--lane-fit", o->lane_fit,
                  "Post-processing: degree of the robust polynomial x(y) each lane is resampled on (0 = off, "
                  "points as decoded)")
      ->check(CLI::Range(0, 3));
  cmd->add_option("--lane-fit-extend", o->lane_fit_extend,
                  "Post-processing: h_samples the lane fit also fills beyond each end of a lane")
      ->check(CLI::Range(0, 56));
  cmd->add_option("--border-columns", o->border_columns,
                  "Post-processing: a row whose peak is within this many map columns of the side borders has no "
                  "point (0 = keep)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--max-gap-rows", o->max_gap_rows,
                  "Post-processing: gap filling and the lane fit fill at most this many missing h_samples between "
                  "two detected points of a lane; longer gaps stay empty (-1 = fill every gap)")
      ->check(CLI::Range(-1, 100));
  cmd->add_flag_callback("--no-tensorboard", [o] { o->tensorboard = false; },
                         "Write no TensorBoard event file of the first overlays into --out");
  auto device = std::make_shared<std::optional<std::string>>();
  cmd->add_option("--device", *device,
                  "auto|cpu|cuda|cuda:N; auto: CUDA when built with it and a GPU is visible [env: DEVICE, default: auto]");
  cmd->add_option("--threads", *threads, "Intra-op threads [env: OMP_NUM_THREADS, default: libtorch's]")->type_name("INT");
  cmd->callback([o, threads, device] {
    // The flag, else the variable, as scnn-train train reads its settings.
    const auto env = process_environment();
    if (auto s = pick_setting(*device, "--device", env, "DEVICE")) {
      o->device = s->text;
      o->device_source = s->name;
    }
    if (auto s = pick_setting(*threads, "--threads", env, "OMP_NUM_THREADS"))
      o->threads = static_cast<int>(parse_int(s->text, s->name, 1));
    run_predict(*o);
  });
}

}  // namespace lane::train
