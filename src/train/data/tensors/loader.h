#pragma once
// TuSimple batches as libtorch tensors. All heavy work (decode, targets, augmentation,
// prefetch queue) lives in lane_train_data (train/data/pipeline.h); this side only packs
// samples into tensors. Include only from .cpp files: it pulls in <torch/torch.h>.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <torch/torch.h>

#include "train/data/tusimple_labels.h"

namespace lane::data {

class SamplePipeline;  // train/data/pipeline.h

struct LoaderOptions {
  std::filesystem::path data_dir;          // root holding clips/ and the label files
  std::vector<std::string> label_files;    // relative to data_dir (e.g. "label_data_0313.json")
  int input_height = 368, input_width = 640;
  int crop_top = 0;                        // rows of the 720-row frame dropped before resizing
  int lane_slots = 6;                      // 6 -> 7 classes; 4 -> 5 classes
  bool augment = false;
  int batch_size = 8;
  bool shuffle = true;
  bool drop_last = true;
  uint64_t seed = 0;
  int rank = 0, world_size = 1;
  bool use_workers = false;
  int num_workers = 4;
  bool skip_bad = false;
};

struct Batch {
  torch::Tensor images;            // float32 [B,3,H,W], normalised
  torch::Tensor seg;               // int64 [B,H,W]: 0 background, 1..lane_slots
  torch::Tensor exist;             // float32 [B,lane_slots]
  std::vector<LaneLabel> labels;   // ground truth in original 1280x720 coordinates
};

class TusimpleLoader {
 public:
  explicit TusimpleLoader(LoaderOptions options);
  ~TusimpleLoader();
  TusimpleLoader(const TusimpleLoader&) = delete;
  TusimpleLoader& operator=(const TusimpleLoader&) = delete;

  size_t dataset_size() const;       // all labelled samples
  size_t shard_size() const;         // samples this rank sees per epoch
  size_t batches_per_epoch() const;
  void start_epoch(int epoch, size_t skip_batches = 0);  // deterministic order; skip for resume
  std::optional<Batch> next();       // std::nullopt at the end of the epoch
  size_t skipped_images() const;     // corrupt JPEGs skipped so far

 private:
  LoaderOptions options_;
  std::unique_ptr<SamplePipeline> pipeline_;
};

struct PreprocessOptions { int input_height = 368, input_width = 640, crop_top = 0; };

// One frame (BGR, any size) to a normalised [3,H,W] float tensor, for predict.
torch::Tensor preprocess_frame(const cv::Mat& bgr, const PreprocessOptions& options);

}  // namespace lane::data
