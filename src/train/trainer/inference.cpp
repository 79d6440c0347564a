#include "train/trainer/inference.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

#include "train/data/frame_transform.h"
#include "train/dist/gradient_sync.h"

namespace lane::train {

eval::PostprocessOptions postprocess_options(const model::ScnnConfig& model, int crop_top, cv::Size frame) {
  eval::PostprocessOptions o;
  data::FrameGeometry geometry;  // what the loader cropped: crop_top scaled to this frame
  geometry.crop_top = crop_top;
  o.crop_top = data::crop_rows(geometry, frame.height);
  o.frame_width = frame.width;
  o.frame_height = frame.height;
  const int k = static_cast<int>(std::lround(9.0 * model.input_width / 640.0));
  o.blur_kernel = std::max(1, k % 2 == 1 ? k : k - 1);
  o.subpixel_radius = 8;  // one cell of the 1/8-resolution logits each side of the argmax
  // Rows between detections (gaps between dashes, where the small network's probability dips
  // under 0.3) are interpolated: +0.009 / +0.014 accuracy, FP -0.04 / -0.06, FN -0.04 / -0.05
  // on two trained demo models (docs/dev/training.md, "How the demo recipe was chosen").
  o.fill_gaps = true;
  // The existence branch (weight 0.1 in the loss, most slots empty) comes out under-confident
  // after a short training: real lanes at 0.2-0.3. With 0.2 instead of the recipe's 0.5,
  // accuracy rose by 0.021 / 0.024 / 0.206 and FN fell by 0.06 / 0.06 / 0.25 on three demo
  // models (seeds 7, 11, 23); the segmentation map still has to show the lane (>= 2 points).
  o.exist_threshold = 0.2;
  // Lane-shape prior: each lane resampled on a robust quadratic x(y) through its points
  // (eval/lane_fit.h). On the demo models of seeds 7, 11, 23 and 5: accuracy +0.006 to +0.009,
  // FP and FN down by up to 0.017 (docs/dev/training.md, "Lane-shape prior").
  o.lane_fit.degree = 2;
  // A row peak in the first or last map column is where a lane that left the frame at the side
  // still shows (the label has no point there): FP and FN down by 0.007-0.011 on two of the four
  // demo models, unchanged on the others.
  o.border_columns = 1;
  // Gap filling and the lane fit fill gaps of any length: on six demo models trained on masks
  // that follow the labels, a limit (max_gap_rows 0-6) lowered accuracy on five (by up to 0.0066)
  // and moved FP/FN both ways (docs/dev/training.md, "Lane-shape prior"); predict --max-gap-rows sets one.
  o.max_gap_rows = -1;
  return o;
}

LaneProbabilities to_probabilities(const model::ScnnOutput& out) {
  return {torch::softmax(out.seg_logits, 1).to(torch::kCPU).contiguous(),
          torch::sigmoid(out.exist_logits).to(torch::kCPU).contiguous()};
}

std::vector<std::vector<double>> lanes_for_image(const LaneProbabilities& probs, int64_t i,
                                                 const eval::PostprocessOptions& options) {
  const auto seg = probs.seg[i];  // [C, H, W], contiguous
  const int h = static_cast<int>(seg.size(1)), w = static_cast<int>(seg.size(2));
  std::vector<cv::Mat> lane_maps;
  for (int64_t c = 1; c < seg.size(0); ++c) {
    auto plane = seg[c].contiguous();
    lane_maps.push_back(cv::Mat(h, w, CV_32F, plane.data_ptr<float>()).clone());
  }
  const auto e = probs.exist[i].contiguous();
  std::vector<float> existence(e.data_ptr<float>(), e.data_ptr<float>() + e.numel());
  return eval::probabilities_to_lanes(lane_maps, existence, options);
}

eval::Metrics validate(model::Scnn& net, data::TusimpleLoader& loader, int crop_top, dist::Communicator& comm) {
  torch::NoGradGuard no_grad;
  const bool was_training = net->is_training();
  net->eval();
  std::vector<eval::PredictionLine> predictions;
  std::vector<data::LaneLabel> truth;
  // The network runs where its weights are (a GPU run validates on its GPU).
  const auto device = net->parameters().front().device();
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    const auto probs = to_probabilities(net->forward(batch->images.to(device)));
    for (size_t i = 0; i < batch->labels.size(); ++i) {
      const auto& label = batch->labels[i];
      // The same raw_file can appear twice when the last shard is padded; score it once.
      bool seen = false;
      for (const auto& t : truth) seen = seen || t.raw_file == label.raw_file;
      if (seen) continue;
      eval::PostprocessOptions opts = postprocess_options(net->config(), crop_top, batch->frames[i]);
      opts.h_samples = label.h_samples;
      predictions.push_back({label.raw_file, lanes_for_image(probs, static_cast<int64_t>(i), opts), 0.0});
      truth.push_back(label);
    }
  }
  net->train(was_training);
  eval::Metrics local;
  if (!truth.empty()) local = eval::evaluate(predictions, truth);
  // Frame-weighted means across ranks: average(sum)/average(frames) = global mean.
  const double frames = static_cast<double>(local.frames);
  const double avg_frames = dist::average_scalar(comm, frames);
  eval::Metrics global;
  global.frames = static_cast<size_t>(avg_frames * comm.size() + 0.5);
  if (avg_frames > 0) {
    global.accuracy = dist::average_scalar(comm, local.accuracy * frames) / avg_frames;
    global.fp = dist::average_scalar(comm, local.fp * frames) / avg_frames;
    global.fn = dist::average_scalar(comm, local.fn * frames) / avg_frames;
  }
  return global;
}

}  // namespace lane::train
