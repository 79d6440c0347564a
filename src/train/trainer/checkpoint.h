#pragma once
// Checkpoints: model parameters + buffers, SGD state, progress counters, the CPU RNG state, the
// CUDA RNG state of every GPU the saving process saw (none on a CPU run), the model shape and the
// settings of the run that saved it, in one libtorch archive. Written atomically (serialise in memory, then
// write_file_atomic: temp file in the same directory, fsync, rename), so an interrupted write
// never damages the previous file. The file starts with a SHA-256 of the archive, checked on
// every load (lane::UsageError "checkpoint ... is damaged"); a file without it (an older version,
// or the line removed) is refused. Includes libtorch: include only from trainer .cpp files.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "train/model/scnn.h"

namespace lane::train {

struct TrainingProgress {
  int64_t step = 0;            // optimiser steps done
  int64_t epoch = 0;           // epoch in progress
  int64_t batch_in_epoch = 0;  // batches of `epoch` already consumed
  double best_accuracy = -1;   // best validation accuracy so far (-1: none)
};

// What predict needs besides the weights.
struct CheckpointModelInfo {
  model::ScnnConfig model;
  int crop_top = 0;
};

// `settings`: the training run's settings_record() (train_settings.h); null leaves it out.
std::string serialize_checkpoint(model::Scnn& net, torch::optim::Optimizer& opt, const TrainingProgress& progress,
                                 const CheckpointModelInfo& info, const nlohmann::json& settings = nullptr);
void save_checkpoint(const std::filesystem::path& path, model::Scnn& net, torch::optim::Optimizer& opt,
                     const TrainingProgress& progress, const CheckpointModelInfo& info,
                     const nlohmann::json& settings = nullptr);

// Removes checkpoint*.pt.tmp.<pid>.* files in `dir` whose writer (pid) is gone: what a training
// killed while saving leaves. Called when training starts and before each save.
void remove_stale_checkpoint_temporaries(const std::filesystem::path& dir);

// A checkpoint file read and verified (its digest) once, for a caller that needs several of its
// parts: the resume of a training run reads its settings, its model shape and then the weights.
// The constructor throws lane::UsageError for a missing, damaged or foreign file.
class CheckpointFile {
 public:
  explicit CheckpointFile(std::filesystem::path path);
  CheckpointFile(const CheckpointFile&) = delete;
  CheckpointFile& operator=(const CheckpointFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  CheckpointModelInfo info();
  nlohmann::json settings();  // null when it has none (see read_checkpoint_settings)
  std::optional<std::vector<torch::Tensor>> cuda_rng_states();
  // Restores weights, and when `opt` is given the optimiser state and the CPU and CUDA RNG
  // states. The model must have the stored shape (lane::UsageError otherwise).
  TrainingProgress load_into(model::Scnn& net, torch::optim::Optimizer* opt);

 private:
  std::filesystem::path path_;
  torch::serialize::InputArchive archive_;
};

// One part of a checkpoint file, for a caller that needs only that (each reads the whole file).
// Model shape stored in a checkpoint (for predict). Throws lane::UsageError for a bad file.
CheckpointModelInfo read_checkpoint_info(const std::filesystem::path& path);
// The settings record stored in a checkpoint; null when it has none (saved outside a training run
// or by an older version). Throws lane::UsageError for a bad file.
nlohmann::json read_checkpoint_settings(const std::filesystem::path& path);

// The CUDA generators' states, one per visible GPU in device order (none in a CPU-only build or
// without a GPU), and their restoration: state i goes to GPU i. A checkpoint with states of more
// GPUs than this process sees (a GPU run resumed on fewer GPUs or on the CPU) restores what it can
// and warns on stderr that the CUDA random streams of the others are not continued.
std::vector<torch::Tensor> cuda_rng_states();
void restore_cuda_rng_states(const std::vector<torch::Tensor>& states, const std::string& checkpoint_name);

// The CUDA RNG states in an archive ("rng_cuda_count" and "rng_cuda_<i>"): written by every save,
// std::nullopt when reading a checkpoint saved before they were recorded.
void write_cuda_rng_states(torch::serialize::OutputArchive& archive, const std::vector<torch::Tensor>& states);
std::optional<std::vector<torch::Tensor>> read_cuda_rng_states(torch::serialize::InputArchive& archive);
// The same from a checkpoint file (lane::UsageError for a bad file).
std::optional<std::vector<torch::Tensor>> read_checkpoint_cuda_rng_states(const std::filesystem::path& path);

// Restores weights, and when `opt` is given the optimiser state and the CPU and CUDA RNG states.
// The model must have the stored shape (lane::UsageError otherwise).
TrainingProgress load_checkpoint(const std::filesystem::path& path, model::Scnn& net, torch::optim::Optimizer* opt);

}  // namespace lane::train
