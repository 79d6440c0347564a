#include "train/data/tensors/loader.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"

namespace lane::data {
namespace {

PipelineOptions pipeline_options(const LoaderOptions& o) {
  if (o.batch_size < 1) throw UsageError(fmt::format("batch_size is {}; it must be at least 1", o.batch_size));
  PipelineOptions p = o.pipeline;
  p.queue_capacity = size_t(2 * o.batch_size);  // one batch being consumed, one being prepared
  return p;
}

}  // namespace

TusimpleLoader::TusimpleLoader(LoaderOptions options)
    : options_(std::move(options)), pipeline_(std::make_unique<SamplePipeline>(pipeline_options(options_))) {}

TusimpleLoader::~TusimpleLoader() { stop_batch_thread(); }

size_t TusimpleLoader::dataset_size() const { return pipeline_->dataset_size(); }
size_t TusimpleLoader::shard_size() const { return pipeline_->shard_size(); }

size_t TusimpleLoader::batches_per_epoch() const {
  const size_t n = shard_size(), b = size_t(options_.batch_size);
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

void TusimpleLoader::start_epoch(int epoch, size_t skip_batches) {
  stop_batch_thread();
  pipeline_->start_epoch(epoch, skip_batches * size_t(options_.batch_size));
  if (options_.batch_thread && options_.pipeline.use_workers) batcher_ = std::thread([this] { batch_loop(); });
}

void TusimpleLoader::stop_batch_thread() {
  if (batcher_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    batcher_.join();  // at most the batch it is packing: the workers keep feeding it
  }
  ready_.reset();
  ended_ = stopping_ = false;
  failure_ = nullptr;
}

void TusimpleLoader::batch_loop() {
  for (;;) {
    std::optional<Batch> b;
    std::exception_ptr failure;
    try {
      b = assemble();
    } catch (...) {
      failure = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (!b) {
      failure_ = failure;
      ended_ = true;
      changed_.notify_all();
      return;
    }
    ready_ = std::move(b);
    changed_.notify_all();
    changed_.wait(lock, [&] { return stopping_ || !ready_; });
    if (stopping_) return;
  }
}

std::optional<Batch> TusimpleLoader::next() {
  if (!batcher_.joinable()) return assemble();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return ready_.has_value() || ended_; });
  if (failure_) std::rethrow_exception(failure_);
  if (!ready_) return std::nullopt;
  std::optional<Batch> b = std::move(ready_);
  ready_.reset();
  lock.unlock();
  changed_.notify_all();
  return b;
}

std::optional<Batch> TusimpleLoader::assemble() {
  std::vector<Sample> samples;
  samples.reserve(size_t(options_.batch_size));
  while (int(samples.size()) < options_.batch_size) {
    auto s = pipeline_->next();
    if (!s) break;
    samples.push_back(std::move(*s));
  }
  if (samples.empty()) return std::nullopt;
  if (options_.drop_last && int(samples.size()) < options_.batch_size) return std::nullopt;

  const PipelineOptions& p = options_.pipeline;
  const int64_t b = int64_t(samples.size()), h = p.input_height, w = p.input_width;
  const int64_t slots = p.lane_slots;
  Batch batch;
  batch.images = torch::empty({b, 3, h, w}, torch::kFloat32);
  auto seg_u8 = torch::empty({b, h, w}, torch::kUInt8);
  batch.exist = torch::empty({b, slots}, torch::kFloat32);
  float* images = batch.images.data_ptr<float>();
  uint8_t* seg = seg_u8.data_ptr<uint8_t>();
  float* exist = batch.exist.data_ptr<float>();
  for (int64_t i = 0; i < b; ++i) {
    const Sample& s = samples[size_t(i)];
    std::memcpy(images + i * 3 * h * w, s.image.data(), sizeof(float) * size_t(3 * h * w));
    for (int64_t y = 0; y < h; ++y) std::memcpy(seg + (i * h + y) * w, s.mask.ptr<uint8_t>(int(y)), size_t(w));
    for (int64_t k = 0; k < slots; ++k) exist[i * slots + k] = float(s.exist[size_t(k)]);
    batch.labels.push_back(pipeline_->labels()[s.index]);
    batch.frames.push_back(s.frame);
  }
  batch.seg = seg_u8.to(torch::kInt64);
  return batch;
}

size_t TusimpleLoader::skipped_images() const { return pipeline_->skipped_images(); }

torch::Tensor preprocess_frame(const cv::Mat& bgr, const PreprocessOptions& options) {
  if (bgr.empty() || bgr.type() != CV_8UC3) throw UsageError("preprocess_frame needs a non-empty 8-bit BGR image");
  FrameGeometry g;
  g.crop_top = options.crop_top;  // in rows of a 720-row frame; scaled to this frame's height
  g.input = cv::Size(options.input_width, options.input_height);
  decode_reduction(g);  // validates the geometry
  const cv::Mat resized = crop_and_resize(bgr, g, cv::INTER_LINEAR);
  auto out = torch::empty({3, options.input_height, options.input_width}, torch::kFloat32);
  normalize_to_chw(resized, out.data_ptr<float>());
  return out;
}

}  // namespace lane::data
