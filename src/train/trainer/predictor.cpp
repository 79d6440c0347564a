#include "train/trainer/predictor.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/data/frame_transform.h"
#include "train/data/image_codec.h"
#include "train/data/tensors/loader.h"
#include "train/data/tusimple_labels.h"
#include "train/eval/frame_table.h"
#include "train/eval/overlay.h"
#include "train/tensorboard/event_writer.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/inference.h"

namespace lane::train {
namespace fs = std::filesystem;

namespace {

bool is_image(const fs::path& p) {
  auto ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

std::vector<fs::path> list_images(const fs::path& input) {
  if (fs::is_regular_file(input)) return {input};
  if (!fs::is_directory(input)) throw UsageError(fmt::format("--input: '{}' does not exist", input.string()));
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(input))
    if (e.is_regular_file() && is_image(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw UsageError(fmt::format("--input: no .jpg/.png images under '{}'", input.string()));
  return out;
}

// The frame at `path` (BGR), or nullopt after a warning on stderr when it does not decode.
std::optional<cv::Mat> read_frame(const fs::path& path) {
  try {
    return data::read_image(path);
  } catch (const Error& e) {
    std::cerr << fmt::format("scnn-train: warning: {}; skipped\n", e.what());
    return std::nullopt;
  }
}

// The network input for a full frame. The training loader decodes JPEGs at 1/2, 1/4 or 1/8
// size (DCT scaling, an area average) before the final resize; a plain bilinear shrink of the
// full frame aliases the thin lane markings instead (0.918 vs 0.924 accuracy on a demo model).
// Shrink the same way here.
torch::Tensor network_input(const cv::Mat& frame, const CheckpointModelInfo& info) {
  data::FrameGeometry geometry;
  geometry.crop_top = info.crop_top;
  geometry.input = cv::Size(info.model.input_width, info.model.input_height);
  const int reduction = data::decode_reduction(geometry, frame.size());
  cv::Mat reduced = frame;
  if (reduction > 1)
    cv::resize(frame, reduced, cv::Size(frame.cols / reduction, frame.rows / reduction), 0, 0, cv::INTER_AREA);
  return data::preprocess_frame(reduced, {info.model.input_height, info.model.input_width, info.crop_top});
}

// raw_file -> label, from --labels (empty without).
std::unordered_map<std::string, data::LaneLabel> load_truth(const fs::path& labels) {
  std::unordered_map<std::string, data::LaneLabel> truth;
  if (!labels.empty())
    for (auto& label : data::load_label_file(labels).labels) truth[label.raw_file] = std::move(label);
  return truth;
}

// The checkpoint's post-processing for a frame of `frame_size`, with the command line's overrides.
eval::PostprocessOptions predict_postprocess_options(const PredictOptions& o, const CheckpointModelInfo& info,
                                                     cv::Size frame_size) {
  eval::PostprocessOptions post = postprocess_options(info.model, info.crop_top, frame_size);
  if (o.prob_threshold >= 0) post.prob_threshold = o.prob_threshold;
  if (o.exist_threshold >= 0) post.exist_threshold = o.exist_threshold;
  if (o.fill_gaps >= 0) post.fill_gaps = o.fill_gaps == 1;
  if (o.relative_threshold >= 0) post.relative_threshold = o.relative_threshold;
  if (o.lane_fit >= 0) post.lane_fit.degree = o.lane_fit;
  if (o.lane_fit_extend >= 0) post.lane_fit.extend_rows = o.lane_fit_extend;
  if (o.border_columns >= 0) post.border_columns = o.border_columns;
  if (o.max_gap_rows) post.max_gap_rows = *o.max_gap_rows;
  return post;
}

}  // namespace

void PredictTiming::add(double ms) {
  if (images++ == 0) {
    first_ms = ms;
    return;
  }
  steady_ms += (ms - steady_ms) / static_cast<double>(images - 1);
}

std::string PredictTiming::describe() const {
  if (images < 2) return fmt::format("{:.1f} ms for its only image", first_ms);
  return fmt::format("{:.1f} ms per image after a {:.1f} ms first image", steady_ms, first_ms);
}

PredictSummary run_predict(const PredictOptions& o) {
  if (o.threads > 0) torch::set_num_threads(o.threads);
  CheckpointFile checkpoint(o.checkpoint);
  const auto info = checkpoint.info();
  // Checkpoints hold CPU tensors whatever device trained them, so any checkpoint runs on either.
  const DeviceChoice device_choice = select_device(o.device, o.device_source);
  const torch::Device device = torch_device(device_choice);
  model::Scnn net(info.model);
  const int64_t trained_steps = checkpoint.load_into(net, nullptr).step;
  net->to(device);
  net->eval();
  torch::NoGradGuard no_grad;
  // One untimed pass first: a frame's run_time (what the TuSimple metric limits to 200 ms) is the
  // network's time for that frame, not CUDA's start-up and cuDNN's autotuning (3.7 s on an H100).
  net->forward(torch::zeros({1, 3, info.model.input_height, info.model.input_width}, device));
  if (device.is_cuda()) torch::cuda::synchronize(device.index());

  const auto images = list_images(o.input);
  const fs::path root = !o.raw_root.empty() ? o.raw_root : (fs::is_directory(o.input) ? o.input : o.input.parent_path());
  fs::create_directories(o.out_dir / "overlays");
  PredictSummary summary;
  summary.predictions = o.out_dir / "predictions.json";
  std::unique_ptr<tensorboard::EventWriter> events;
  if (o.tensorboard) events = std::make_unique<tensorboard::EventWriter>(o.out_dir);
  const auto truth = load_truth(o.labels);
  std::string lines;
  for (const auto& path : images) {
    std::optional<cv::Mat> decoded = read_frame(path);
    if (!decoded) continue;
    cv::Mat& frame = *decoded;
    const std::string raw_file = fs::relative(path, root).generic_string();
    const auto label = truth.find(raw_file);
    const bool labelled = label != truth.end();
    const auto t0 = std::chrono::steady_clock::now();
    const auto input = network_input(frame, info);
    const auto probs = to_probabilities(net->forward(input.unsqueeze(0).to(device)));
    eval::PostprocessOptions post = predict_postprocess_options(o, info, frame.size());
    post.h_samples = labelled ? label->second.h_samples : eval::default_h_samples();
    const auto lanes = lanes_for_image(probs, 0, post);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    summary.timing.add(ms);

    lines += eval::submission_line(raw_file, lanes, post.h_samples, ms).dump() + "\n";
    eval::draw_lane_overlay(frame, lanes, post.h_samples,
                            labelled ? std::optional<data::LaneLabel>(label->second) : std::nullopt, ms);
    const fs::path png = o.out_dir / "overlays" / eval::overlay_name(raw_file);
    data::write_png(png, frame);
    if (events && summary.images < kMaxEventOverlays)
      events->image(trained_steps, "overlays/" + png.filename().string(), read_file(png));
    if (labelled) ++summary.labelled;
    std::cout << fmt::format("{}: {} lanes, {:.1f} ms\n", raw_file, lanes.size(), ms);
    ++summary.images;
  }
  if (summary.images == 0) throw Error("no image could be decoded");
  if (!o.labels.empty() && summary.labelled == 0)
    throw UsageError(fmt::format("--labels: no predicted image's raw_file (e.g. '{}') is in '{}'; set --raw-root to the "
                                 "folder the label paths are relative to",
                                 fs::relative(images.front(), root).generic_string(), o.labels.string()));
  write_file_atomic(summary.predictions, lines);
  std::cout << fmt::format("{} images, {} (network + post-processing, {}); wrote {} and {}\n", summary.images,
                           summary.timing.describe(), device_choice.describe(), summary.predictions.string(),
                           (o.out_dir / "overlays").string());
  return summary;
}

}  // namespace lane::train
