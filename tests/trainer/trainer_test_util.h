#pragma once
// Shared helpers of the trainer tests: a scratch folder, a small training config on the six
// real TuSimple frames in tests/data, and running the scnn-train binary.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "train/config/train_config.h"

namespace lane::test {

// A small SCNN for unit tests: the "small" preset at 32x64 input.
inline model::ScnnConfig tiny_model() {
  auto c = model::model_preset("small");
  c.input_height = 32;
  c.input_width = 64;
  return c;
}

struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("lane_trainer_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

// Small network, 64x128 input, 6 frames, batch 2 (3 steps per epoch), 1 thread.
inline train::TrainConfig tiny_config(const std::filesystem::path& out) {
  train::TrainConfig c;
  c.data_dir = tusimple_dir();
  c.output_dir = out;
  c.train_labels = {"label_data_0601_first6.json"};
  c.val_labels = {"label_data_0601_first6.json"};
  c.model_name = "small";
  c.model = model::model_preset("small");
  c.model.input_height = 64;
  c.model.input_width = 128;
  c.batch_size = 2;
  c.val_batch_size = 3;
  c.epochs = 2;
  c.lr = 0.01;
  c.warmup_steps = 2;
  c.log_every = 1;
  c.checkpoint_every = 100;
  c.threads = 1;
  return c;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The "loss" of every kind:"train" record of a metrics.jsonl, in order.
inline std::vector<double> logged_train_losses(const std::filesystem::path& metrics) {
  std::vector<double> out;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["kind"] == "train") out.push_back(j["loss"].get<double>());
  }
  return out;
}

inline std::string scnn_train() { return (bin_dir() / "scnn-train").string(); }

}  // namespace lane::test
