#pragma once
// The training-sample pipeline without libtorch: labels -> epoch order (sharded) -> decode,
// crop, resize, targets, augmentation, normalisation, optionally on worker threads with a
// bounded reorder queue. Samples come out in the same order for any worker count; corrupt
// images are reported on stderr and skipped.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>

#include "common/error.h"
#include "train/data/frame_transform.h"
#include "train/data/shard_sampler.h"
#include "train/data/tusimple_labels.h"

namespace lane::data {

struct PipelineOptions {
  std::filesystem::path data_dir;        // root holding clips/ and the label files
  std::vector<std::string> label_files;  // relative to data_dir
  int input_height = 368, input_width = 640;
  int crop_top = 0;
  int lane_slots = 6;
  bool augment = false;
  bool shuffle = true;
  uint64_t seed = 0;
  int rank = 0, world_size = 1;
  bool use_workers = false;
  int num_workers = 4;
  size_t queue_capacity = 16;  // samples decoded ahead of the consumer (finished + in flight)
  bool skip_bad = false;       // skip malformed label lines instead of failing
};

struct Sample {
  size_t position = 0;         // position in this rank's epoch order
  size_t index = 0;            // index into labels()
  std::vector<float> image;    // 3 x H x W, RGB, normalised
  cv::Mat mask;                // CV_8UC1 H x W, 0 background, 1..lane_slots
  std::vector<int> exist;      // lane_slots flags
  cv::Size frame;              // the stored frame's size: the label's coordinates are its pixels
};

// A label with points below the bottom of its frame: it was made for frames of another size
// (e.g. 1280x720 labels over down-scaled frames). Every sample of such a set would train on
// misplaced targets, so the pipeline stops at the first one instead of skipping it.
class LabelFrameMismatch : public UsageError {
 public:
  using UsageError::UsageError;
};

// One sample, without threads: exposed for tests, the benchmark and `inspect`.
// Returns std::nullopt (with `error` set) for an unreadable image; throws LabelFrameMismatch.
std::optional<Sample> load_sample(const PipelineOptions& options, const LaneLabel& label, uint64_t augment_seed,
                                  std::string* error);

class SamplePipeline {
 public:
  explicit SamplePipeline(PipelineOptions options);
  ~SamplePipeline();
  SamplePipeline(const SamplePipeline&) = delete;
  SamplePipeline& operator=(const SamplePipeline&) = delete;

  const std::vector<LaneLabel>& labels() const { return labels_; }
  const std::vector<ParseIssue>& skipped_labels() const { return skipped_labels_; }
  const PipelineOptions& options() const { return options_; }
  size_t dataset_size() const { return labels_.size(); }
  size_t shard_size() const;

  // Restarts at `skip_samples` into this rank's order for `epoch` (stops running workers).
  void start_epoch(int epoch, size_t skip_samples = 0);
  std::optional<Sample> next();  // std::nullopt at the end of the epoch; throws LabelFrameMismatch

  size_t skipped_images() const;
  size_t max_buffered() const;   // high-water mark of decoded-ahead samples (<= queue_capacity)

 private:
  struct Result {
    std::optional<Sample> sample;  // empty: the image was skipped
    std::string fatal;             // a LabelFrameMismatch: next() throws it
  };
  Result produce(size_t position) const;
  void worker_loop();
  void stop_workers();

  PipelineOptions options_;
  std::vector<LaneLabel> labels_;
  std::vector<ParseIssue> skipped_labels_;
  int epoch_ = 0;
  std::vector<size_t> order_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  size_t next_claim_ = 0;     // next position a worker takes
  size_t next_consume_ = 0;   // next position next() returns
  std::map<size_t, Result> ready_;
  size_t in_flight_ = 0;
  size_t max_buffered_ = 0;
  size_t skipped_images_ = 0;
};

}  // namespace lane::data
