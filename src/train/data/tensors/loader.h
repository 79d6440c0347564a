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

#include "train/data/pipeline.h"
#include "train/data/tusimple_labels.h"

namespace lane::data {

// The sample pipeline's options plus batching; the loader sets pipeline.queue_capacity to two
// batches (one being consumed, one being prepared).
struct LoaderOptions {
  PipelineOptions pipeline;
  int batch_size = 8;
  bool drop_last = true;
};

struct Batch {
  torch::Tensor images;            // float32 [B,3,H,W], normalised
  torch::Tensor seg;               // int64 [B,H,W]: 0 background, 1..lane_slots
  torch::Tensor exist;             // float32 [B,lane_slots]
  std::vector<LaneLabel> labels;   // ground truth, in pixels of its frame
  std::vector<cv::Size> frames;    // each sample's frame size (TuSimple: 1280x720)
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
