#pragma once
// The training loop (single process, or one rank under mpirun). No libtorch in this header.
#include <cstdint>
#include <functional>

#include "common/run_outputs.h"
#include "train/config/train_config.h"

namespace lane::train {

// What a finished run leaves behind (rank 0's view).
struct TrainingResult {
  RunLayout outputs;         // the output directory; its best checkpoint only when best_accuracy >= 0
  int64_t steps = 0;
  double final_loss = 0;
  double best_accuracy = -1;  // -1 when validation was off
};

// Called once, by rank 0, when a run has finished (not when it was preempted) and its final
// checkpoint, metrics and curves are on disk: scnn-train train passes after_training (the
// end-of-training snapshot, after_training.h).
using EndOfTraining = std::function<void(const TrainConfig&, const TrainingResult&)>;

// Trains as configured, then calls end_of_training (when given). Throws lane::UsageError for bad
// input, lane::Error for failures.
TrainingResult run_training(const TrainConfig& config, const EndOfTraining& end_of_training = nullptr);

}  // namespace lane::train
