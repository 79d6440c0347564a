#pragma once
// The end-of-training hook: called exactly once, by rank 0 only, after the final checkpoint,
// metrics.jsonl and the curves PNG are on disk. This is the single place for post-training
// work; it runs what the program installed with set_after_training (scnn-train's main() installs
// the data + model snapshot of the seed workflow, ENABLE_SNAPSHOT, which lives above the trainer
// in submit/factory: the trainer library itself depends on nothing above common).
#include <filesystem>
#include <functional>

#include "train/trainer/trainer.h"

namespace lane::train {

using AfterTraining = std::function<void(const std::filesystem::path& output_dir)>;

// Installs the post-training step (once, at program start); empty: nothing runs.
void set_after_training(AfterTraining step);

void after_training(const TrainConfig& config, const TrainingResult& result);

}  // namespace lane::train
