#pragma once
// The end-of-training step: called exactly once, by rank 0 only, after the final checkpoint,
// metrics.jsonl and the curves PNG are on disk. With ENABLE_SNAPSHOT=true (the seed's ML
// versioning step) it snapshots the job's claim, data and model together, and records the
// lineage. The trainer does not link the control plane that does this: it runs
//   lanectl __training-snapshot --output-dir DIR --code-version REV
// (the `lanectl` next to scnn-train, else the first on PATH), which inherits the environment
// (PVC_NAME, the job's identity, the backend) and the standard streams, so its "Snapshot <name>
// created in namespace <ns>" line lands in the job's log. A trainer-only build (LANE_TRAIN_ONLY,
// the GPU hosts' build) trains without lanectl and fails only when a snapshot is asked for.
#include <filesystem>
#include <string>
#include <vector>

#include "train/trainer/trainer.h"

namespace lane::train {

// Whether the environment asks for the end-of-training snapshot (ENABLE_SNAPSHOT true/1/yes).
bool snapshot_requested();

// The program that takes the snapshot: `lanectl` in program_dir when it is there and
// executable, else "lanectl" (looked up on PATH when run).
std::filesystem::path snapshot_program(const std::filesystem::path& program_dir);

// The command line run_snapshot_program runs.
std::vector<std::string> snapshot_command(const std::filesystem::path& program,
                                          const std::filesystem::path& output_dir, const std::string& code_version);

// Runs argv (argv[0] looked up on PATH when it has no '/'), with this process's environment and
// standard streams, and waits. Throws lane::Error naming the program when it cannot be started
// (with the fix) or exits non-zero (with its exit code).
void run_snapshot_program(const std::vector<std::string>& argv);

// The EndOfTraining hook of scnn-train train (trainer.h): the snapshot when ENABLE_SNAPSHOT asks for it.
void after_training(const TrainConfig& config, const TrainingResult& result);

}  // namespace lane::train
