#include "train/trainer/after_training.h"

#include <iostream>

#include "lane/version.h"
#include "storage/training_env/training_snapshot_env.h"

namespace lane::train {

void after_training(const TrainConfig& config, const TrainingResult& /*result*/) {
  // The seed's ML versioning step: with ENABLE_SNAPSHOT=true and PVC_NAME=<claim>, snapshot the
  // claim (data + model) and record lineage; logs "Snapshot <name> created in namespace <ns>".
  storage::snapshot_after_training_from_env(config.output_dir, kGitRevision, std::cout);
}

}  // namespace lane::train
