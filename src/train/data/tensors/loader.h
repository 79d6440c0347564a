#pragma once
// TuSimple batches as libtorch tensors. All heavy work (decode, targets, augmentation,
// prefetch queue) lives in lane_train_data (train/data/pipeline.h); this side packs samples
// into tensors, with worker threads on a batch thread of its own, one batch ahead of the caller.
// Include only from .cpp files: it pulls in <torch/torch.h>.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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
  // With worker threads (pipeline.use_workers): a batch thread packs the next batch while the
  // caller works on the current one, so next() costs the caller a hand-off, not the copies
  // (about 1 ms per 368x640 image). false: next() packs on the caller's thread.
  bool batch_thread = true;
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
  std::optional<Batch> assemble();   // the next batch_size samples, packed on the calling thread
  void batch_loop();
  void stop_batch_thread();

  LoaderOptions options_;
  std::unique_ptr<SamplePipeline> pipeline_;
  // The batch thread's hand-off: at most one packed batch waits; the thread packs the one after
  // it once it is taken. A failure (LabelFrameMismatch) ends the epoch and is rethrown by next().
  std::thread batcher_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Batch> ready_;
  bool ended_ = false, stopping_ = false;
  std::exception_ptr failure_;
};

struct PreprocessOptions { int input_height = 368, input_width = 640, crop_top = 0; };

// One frame (BGR, any size) to a normalised [3,H,W] float tensor, for predict.
torch::Tensor preprocess_frame(const cv::Mat& bgr, const PreprocessOptions& options);

}  // namespace lane::data
