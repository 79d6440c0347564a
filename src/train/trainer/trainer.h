#pragma once
// The training loop (single process, or one rank under mpirun). No libtorch in this header.
#include <cstdint>
#include <filesystem>

#include "train/trainer/train_config.h"

namespace lane::train {

// What a finished run leaves behind (rank 0's view).
struct TrainingResult {
  std::filesystem::path output_dir;
  std::filesystem::path latest_checkpoint;  // <output_dir>/checkpoint_latest.pt
  std::filesystem::path best_checkpoint;    // <output_dir>/checkpoint_best.pt; empty without validation
  std::filesystem::path metrics_file;       // metrics.jsonl
  std::filesystem::path curves_png;         // training_curves.png
  int64_t steps = 0;
  double final_loss = 0;
  double best_accuracy = -1;                // -1 when validation was off
};

// Trains as configured. Throws lane::UsageError for bad input, lane::Error for failures.
TrainingResult run_training(const TrainConfig& config);

}  // namespace lane::train
