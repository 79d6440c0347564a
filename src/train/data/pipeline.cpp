#include "train/data/pipeline.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/data/lane_masks.h"

namespace lane::data {
namespace {

FrameGeometry geometry_of(const PipelineOptions& o) {
  FrameGeometry g;
  g.crop_top = o.crop_top;
  g.input = cv::Size(o.input_width, o.input_height);
  return g;
}

ShardSpec shard_spec_of(const PipelineOptions& o, size_t dataset_size) {
  return ShardSpec{dataset_size, o.shuffle, o.seed, o.rank, o.world_size};
}

void check_label_in_frame(const LaneLabel& label, cv::Size frame, const std::filesystem::path& image) {
  const std::string problem = label_outside_frame(label, frame);
  if (problem.empty()) return;
  // The factor that brings the lowest labelled row inside: for 1280x720 labels, frame height / 720.
  const int last_row = *std::max_element(label.h_samples.begin(), label.h_samples.end());
  throw LabelFrameMismatch(fmt::format(
      "the label of '{}' has {}: label coordinates are the frame's pixels. The labels were made for frames of "
      "another size; scale them to these frames (x and h_samples by about {:.2g}) or train on the frames they "
      "were made for", image.string(), problem, double(frame.height) / (last_row + 1)));
}

}  // namespace

std::optional<Sample> load_sample(const PipelineOptions& options, const LaneLabel& label, uint64_t augment_seed,
                                  std::string* error) {
  const FrameGeometry geometry = geometry_of(options);
  const std::filesystem::path path = options.data_dir / label.raw_file;
  Sample s;
  auto decoded = decode_frame(path, geometry, &s.frame, error);
  if (!decoded) return std::nullopt;
  check_label_in_frame(label, s.frame, path);
  // Targets are rendered at the frame's own size (a TuSimple frame: 720x1280, exactly like the
  // reference PNGs), then brought to the input size with nearest neighbour, like the reference
  // loaders do with the PNGs.
  const cv::Mat full_mask = render_lane_mask(label, options.lane_slots, s.frame, s.frame);
  s.exist = lane_existence(label, options.lane_slots);
  cv::Mat image;
  AugmentParams jitter;  // identity unless augmenting
  if (options.augment) {
    jitter = draw_augment_params(augment_seed);
    warp_to_input(*decoded, full_mask, geometry, jitter.angle_deg, &image, &s.mask);
  } else {
    image = crop_and_resize(*decoded, geometry, cv::INTER_LINEAR);
    s.mask = crop_and_resize(full_mask, geometry, cv::INTER_NEAREST_EXACT);
  }
  s.image.resize(size_t(3) * image.rows * image.cols);
  normalize_to_chw(image, s.image.data(), jitter.contrast, jitter.brightness);
  return s;
}

SamplePipeline::SamplePipeline(PipelineOptions options) : options_(std::move(options)) {
  check_lane_slots(options_.lane_slots);
  decode_reduction(geometry_of(options_));  // validates the geometry up front
  if (options_.use_workers && options_.num_workers < 1)
    throw UsageError(fmt::format("num_workers is {}; use at least 1 or turn use_workers off", options_.num_workers));
  if (options_.queue_capacity < 1) throw UsageError("queue_capacity must be at least 1");
  if (options_.label_files.empty()) throw UsageError("no label files given (e.g. label_data_0313.json)");
  std::vector<std::filesystem::path> paths;
  for (const auto& f : options_.label_files) paths.push_back(options_.data_dir / f);
  LabelParseOptions parse;
  parse.skip_bad = options_.skip_bad;
  parse.offers_skip_bad = true;
  parse.image_root = options_.data_dir;
  LabelSet set = load_label_files(paths, parse);
  labels_ = std::move(set.labels);
  skipped_labels_ = std::move(set.skipped);
  for (const auto& issue : skipped_labels_)
    std::cerr << fmt::format("scnn-train: skipped {}:{}: {}\n", issue.file, issue.line, issue.reason);
  if (labels_.empty()) throw UsageError(fmt::format("no usable label lines under '{}'", options_.data_dir.string()));
  check_shard_spec(shard_spec_of(options_, labels_.size()));
}

SamplePipeline::~SamplePipeline() { stop_workers(); }

size_t SamplePipeline::shard_size() const { return lane::data::shard_size(shard_spec_of(options_, labels_.size())); }

void SamplePipeline::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
  stopping_ = false;
}

void SamplePipeline::start_epoch(int epoch, size_t skip_samples) {
  stop_workers();
  epoch_ = epoch;
  order_ = shard_indices(shard_spec_of(options_, labels_.size()), epoch);
  next_claim_ = next_consume_ = std::min(skip_samples, order_.size());
  ready_.clear();
  in_flight_ = 0;
  if (options_.use_workers)
    for (int w = 0; w < options_.num_workers; ++w) workers_.emplace_back([this] { worker_loop(); });
}

SamplePipeline::Result SamplePipeline::produce(size_t position) const {
  const size_t index = order_[position];
  // The augmentation seed depends only on (seed, epoch, rank, position): worker count and
  // scheduling cannot change a sample.
  const uint64_t seed = mix_seed(mix_seed(mix_seed(options_.seed, uint64_t(epoch_)), uint64_t(options_.rank)), position);
  std::string error;
  Result r;
  try {
    r.sample = load_sample(options_, labels_[index], seed, &error);
  } catch (const LabelFrameMismatch& e) {
    r.fatal = e.what();
    return r;
  } catch (const std::exception& e) {  // an OpenCV failure on one image must not end the epoch
    error = e.what();
  }
  if (r.sample) {
    r.sample->position = position;
    r.sample->index = index;
  } else {
    std::cerr << fmt::format("scnn-train: skipping image '{}': {}\n",
                             (options_.data_dir / labels_[index].raw_file).string(), error);
  }
  return r;
}

void SamplePipeline::worker_loop() {
  for (;;) {
    size_t position;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] {
        return stopping_ || next_claim_ >= order_.size() ||
               next_claim_ < next_consume_ + options_.queue_capacity;
      });
      if (stopping_ || next_claim_ >= order_.size()) return;
      position = next_claim_++;
      ++in_flight_;
      max_buffered_ = std::max(max_buffered_, ready_.size() + in_flight_);
    }
    Result r = produce(position);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_flight_;
      ready_.emplace(position, std::move(r));
    }
    changed_.notify_all();
  }
}

std::optional<Sample> SamplePipeline::next() {
  while (true) {
    Result r;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (next_consume_ >= order_.size()) return std::nullopt;
      if (options_.use_workers) {
        changed_.wait(lock, [&] { return ready_.count(next_consume_) > 0; });
        auto it = ready_.find(next_consume_);
        r = std::move(it->second);
        ready_.erase(it);
        ++next_consume_;
      }
    }
    if (options_.use_workers) {
      changed_.notify_all();  // a slot in the queue is free again
    } else {
      r = produce(next_consume_);
      ++next_consume_;
    }
    if (!r.fatal.empty()) throw LabelFrameMismatch(r.fatal);
    if (r.sample) return std::move(r.sample);
    std::lock_guard<std::mutex> lock(mutex_);
    ++skipped_images_;
  }
}

size_t SamplePipeline::skipped_images() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_images_;
}

size_t SamplePipeline::max_buffered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_buffered_;
}

}  // namespace lane::data
