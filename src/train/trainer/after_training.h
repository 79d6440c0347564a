#pragma once
// The end-of-training hook: called exactly once, by rank 0 only, after the final checkpoint,
// metrics.jsonl and the curves PNG are on disk. This is the single place for post-training
// work such as the data + model snapshot of the seed workflow (ENABLE_SNAPSHOT).
#include "train/trainer/trainer.h"

namespace lane::train {

void after_training(const TrainConfig& config, const TrainingResult& result);

}  // namespace lane::train
