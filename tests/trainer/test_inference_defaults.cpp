// The post-processing that validation and predict use (postprocess_options + lanes_for_image)
// applies the lane-shape prior: a lane whose far end the maps put on a neighbouring blob is
// recovered within the metric's 20 px. Switching the prior off (lane_fit.degree 0, what
// predict --lane-fit 0 does) shows the same maps fail without it.
#include "catch_torch.h"  // torch first: its glog CHECK would otherwise replace Catch's

#include <cmath>

#include "train/config/scnn_config.h"
#include "train/trainer/inference.h"

TEST_CASE("validation and predict post-processing resamples lanes on the robust lane fit", "[trainer][fast]") {
  auto model = lane::model::model_preset("small");
  model.input_height = 128;
  model.input_width = 224;
  const auto options = lane::train::postprocess_options(model, 0, cv::Size(1280, 720));
  CHECK(options.lane_fit.degree == 2);
  CHECK(options.border_columns == 1);
  CHECK(options.fill_gaps);
  CHECK(options.max_gap_rows == -1);  // every gap is filled (docs/dev/training.md, "Lane-shape prior")
  CHECK(options.frame_width == 1280);
  CHECK(options.frame_height == 720);
  // Another frame size: lanes in its pixels, crop_top (rows of a 720-row frame) scaled as the loader crops.
  const auto small = lane::train::postprocess_options(model, 160, cv::Size(512, 288));
  CHECK(small.frame_width == 512);
  CHECK(small.frame_height == 288);
  CHECK(small.crop_top == 64);
  CHECK(lane::train::postprocess_options(model, 160, cv::Size(1280, 720)).crop_top == 160);

  // Probabilities [1, 2, 128, 224]: background and one lane class. The lane (3 columns wide)
  // runs straight from map (40, 30) to (120, 127); on map rows 40..59 (11 of its 55 h_samples)
  // the row peak sits on a blob 25 columns to the left.
  const int h = 128, w = 224;
  auto seg = torch::zeros({1, 2, h, w});
  auto lane = seg[0][1];
  auto col_at = [](int r) { return 40.0 + (120.0 - 40.0) * (r - 30) / 97.0; };
  using torch::indexing::Slice;
  auto mark = [&](int r, int64_t c, double p) { lane[r].index_put_({Slice(c - 1, c + 2)}, p); };
  for (int r = 30; r < h; ++r) mark(r, std::lround(col_at(r)), 0.9);
  for (int r = 40; r < 60; ++r) mark(r, std::lround(col_at(r)) - 25, 0.95);
  seg[0][0] = 1 - seg[0][1];
  const lane::train::LaneProbabilities probs{seg, torch::full({1, 1}, 0.9)};

  auto far_points = [&](const lane::eval::PostprocessOptions& o) {
    const auto lanes = lane::train::lanes_for_image(probs, 0, o);
    REQUIRE(lanes.size() == 1);
    const auto ys = lane::eval::default_h_samples();
    int far = 0, points = 0;
    for (size_t k = 0; k < ys.size(); ++k) {
      const int r = static_cast<int>(ys[k] * static_cast<double>(h) / 720);
      if (r < 30) continue;
      ++points;
      const double truth = (col_at(r) + 0.5) * 1280.0 / w - 0.5;
      far += lanes[0][k] < 0 || std::abs(lanes[0][k] - truth) >= 20;
    }
    CHECK(points > 40);
    return far;
  };
  CHECK(far_points(options) == 0);
  auto off = options;
  off.lane_fit.degree = 0;
  CHECK(far_points(off) >= 8);
}
