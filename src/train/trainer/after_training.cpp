#include "train/trainer/after_training.h"

#include <utility>

namespace lane::train {
namespace {

AfterTraining& installed() {
  static AfterTraining step;
  return step;
}

}  // namespace

void set_after_training(AfterTraining step) { installed() = std::move(step); }

void after_training(const TrainConfig& config, const TrainingResult& /*result*/) {
  if (installed()) installed()(config.output_dir);
}

}  // namespace lane::train
