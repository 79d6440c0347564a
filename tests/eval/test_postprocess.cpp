// Probability maps -> lanes: a round trip through real labels and the official metric, and
// the individual rules (thresholds, row mapping with crop, pruning, blur).
#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "test_paths.h"
#include "train/data/tusimple_labels.h"
#include "train/eval/postprocess.h"
#include "train/eval/tusimple_metric.h"

using lane::eval::PostprocessOptions;
using lane::eval::probabilities_to_lanes;

namespace {

constexpr int kMapH = 368, kMapW = 640, kSlots = 6;

// What a well-trained network would output: each GT lane drawn into its own class map at the
// network resolution (line thickness 5 px, probability 1), existence 0.9 for drawn lanes.
void render_label(const lane::data::LaneLabel& label, std::vector<cv::Mat>& maps, std::vector<float>& exist) {
  maps.assign(kSlots, cv::Mat());
  exist.assign(kSlots, 0.05f);
  for (auto& m : maps) m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  const double sx = kMapW / 1280.0, sy = kMapH / 720.0;
  for (size_t lane = 0; lane < label.lanes.size() && lane < static_cast<size_t>(kSlots); ++lane) {
    std::vector<cv::Point> pts;
    for (size_t k = 0; k < label.h_samples.size(); ++k)
      if (label.lanes[lane][k] >= 0)
        pts.emplace_back(cvRound(label.lanes[lane][k] * sx), cvRound(label.h_samples[k] * sy));
    if (pts.size() < 2) continue;
    for (size_t i = 1; i < pts.size(); ++i) cv::line(maps[lane], pts[i - 1], pts[i], cv::Scalar(1.0), 5);
    exist[lane] = 0.9f;
  }
}

cv::Mat vertical_line_map(int col, float value = 1.0f) {
  cv::Mat m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  m.col(col).setTo(value);
  return m;
}

}  // namespace

TEST_CASE("round trip: real labels (label_data_0531) rendered to probability maps score >= 0.95", "[eval][fast]") {
  const auto gt = lane::data::load_label_file(lane::test::tusimple_dir() / "label_data_0531.json").labels;
  REQUIRE(gt.size() == 358);
  std::vector<lane::eval::PredictionLine> preds;
  PostprocessOptions opts;  // defaults: 1280x720, rows 160..710
  std::vector<cv::Mat> maps;
  std::vector<float> exist;
  for (const auto& label : gt) {
    render_label(label, maps, exist);
    auto lanes = probabilities_to_lanes(maps, exist, opts);
    const auto line = lane::eval::submission_line(label.raw_file, lanes, lane::eval::default_h_samples(), 10.0);
    CHECK(line["h_samples"].size() == 56);
    preds.push_back({line["raw_file"], line["lanes"].get<std::vector<std::vector<double>>>(), line["run_time"]});
  }
  const auto m = lane::eval::evaluate(preds, gt);
  INFO("accuracy " << m.accuracy << " fp " << m.fp << " fn " << m.fn);
  CHECK(m.accuracy >= 0.95);
  CHECK(m.fp <= 0.05);
  CHECK(m.fn <= 0.05);
}

TEST_CASE("a vertical lane maps back to frame x, with rows above crop_top missing", "[eval][fast]") {
  PostprocessOptions opts;
  opts.crop_top = 200;
  // After the 9x9 box blur a 1-px line peaks at 1/9 < 0.3: no points, so no lane.
  CHECK(probabilities_to_lanes({vertical_line_map(320, 1.0f)}, {0.9f}, opts).empty());
  opts.blur_kernel = 1;
  CHECK(probabilities_to_lanes({vertical_line_map(320, 1.0f)}, {0.9f}, opts).size() == 1);
  opts.blur_kernel = 9;
  cv::Mat band = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  band.colRange(318, 323).setTo(1.0f);  // cols 318..322: blurred plateau 5/9 over cols 318..322
  const auto banded = probabilities_to_lanes({band}, {0.9f}, opts);
  REQUIRE(banded.size() == 1);
  for (size_t k = 0; k < 56; ++k) {
    const int y = 160 + 10 * static_cast<int>(k);
    INFO("row " << y);
    if (y < 200)
      CHECK(banded[0][k] == -2.0);
    else
      CHECK(banded[0][k] == 318.0 * 2.0);  // first maximum of the plateau, x scaled by 1280/640
  }
}

TEST_CASE("row mapping accounts for crop_top and the resize", "[eval][fast]") {
  PostprocessOptions opts;
  opts.crop_top = 160;
  opts.blur_kernel = 1;  // no blur: test the mapping alone
  opts.min_points = 1;
  // Frame row 400 -> map row (400 - 160) * 368 / 560 = 157.7 -> 157; its neighbours 390/410 -> 151/164.
  cv::Mat m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  m.at<float>(157, 100) = 0.8f;
  const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
  REQUIRE(lanes.size() == 1);
  for (size_t k = 0; k < 56; ++k) {
    const int y = 160 + 10 * static_cast<int>(k);
    INFO("row " << y);
    CHECK(lanes[0][k] == (y == 400 ? 200.0 : -2.0));
  }
}

TEST_CASE("existence and probability thresholds, min_points and max_lanes pruning", "[eval][fast]") {
  PostprocessOptions opts;
  opts.blur_kernel = 1;
  SECTION("existence <= 0.5 drops the lane; probability <= 0.3 leaves -2") {
    const auto lanes = probabilities_to_lanes({vertical_line_map(10), vertical_line_map(20), vertical_line_map(30, 0.29f)},
                                              {0.5f, 0.51f, 0.9f}, opts);
    REQUIRE(lanes.size() == 1);  // lane 0 not existing, lane 2 never above 0.3
    CHECK(lanes[0][0] == 40.0);
  }
  SECTION("fewer than min_points points drops a lane") {
    cv::Mat one = cv::Mat::zeros(kMapH, kMapW, CV_32F);
    one.at<float>(362, 5) = 1.0f;  // map row of frame row 710 (710 * 368 / 720 = 362.9)
    CHECK(probabilities_to_lanes({one}, {0.9f}, opts).empty());
    opts.min_points = 1;
    CHECK(probabilities_to_lanes({one}, {0.9f}, opts).size() == 1);
  }
  SECTION("more than max_lanes lanes: the least confident go, slot order stays") {
    std::vector<cv::Mat> maps;
    for (int i = 0; i < 6; ++i) maps.push_back(vertical_line_map(100 * i + 50));
    opts.max_lanes = 4;
    const auto lanes = probabilities_to_lanes(maps, {0.9f, 0.6f, 0.95f, 0.7f, 0.55f, 0.99f}, opts);
    REQUIRE(lanes.size() == 4);
    CHECK(lanes[0][0] == 100.0);   // slot 0 (col 50)
    CHECK(lanes[1][0] == 500.0);   // slot 2
    CHECK(lanes[2][0] == 700.0);   // slot 3
    CHECK(lanes[3][0] == 1100.0);  // slot 5
  }
}

TEST_CASE("sub-pixel x: weighted mean column near the argmax, pixel-centre mapping", "[eval][fast]") {
  PostprocessOptions opts;
  opts.blur_kernel = 1;
  // A bilinearly upsampled 1/8 map: equal peaks at cols 96 and 104 and a linear ramp between
  // them and down to 0 at cols 88 / 112 (the shape SCNN's x8 upsampling produces).
  cv::Mat m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  for (int c = 88; c <= 112; ++c) m.col(c).setTo(c < 96 ? 0.8f * (c - 88) / 8 : c > 104 ? 0.8f * (112 - c) / 8 : 0.8f);
  const auto plain = probabilities_to_lanes({m}, {0.9f}, opts);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0][0] == 96.0 * 2.0);  // argmax snaps to the first peak
  opts.subpixel_radius = 8;
  const auto refined = probabilities_to_lanes({m}, {0.9f}, opts);
  REQUIRE(refined.size() == 1);
  for (double x : refined[0]) CHECK(x == Approx((100.0 + 0.5) * 2.0 - 0.5).margin(2.0));  // the profile's centre, +-1 col
  opts.subpixel_radius = -1;
  CHECK_THROWS_AS(probabilities_to_lanes({m}, {0.9f}, opts), lane::UsageError);
}

TEST_CASE("post-processing rejects inconsistent inputs", "[eval][fast]") {
  PostprocessOptions opts;
  CHECK_THROWS_AS(probabilities_to_lanes({vertical_line_map(1)}, {}, opts), lane::UsageError);
  CHECK_THROWS_AS(probabilities_to_lanes({vertical_line_map(1), cv::Mat::zeros(10, 10, CV_32F)}, {0.9f, 0.9f}, opts),
                  lane::UsageError);
  CHECK_THROWS_AS(probabilities_to_lanes({cv::Mat::zeros(10, 10, CV_8U)}, {0.9f}, opts), lane::UsageError);
  opts.crop_top = 720;
  CHECK_THROWS_AS(probabilities_to_lanes({vertical_line_map(1)}, {0.9f}, opts), lane::UsageError);
  CHECK_THROWS_AS(lane::eval::submission_line("x", {{1.0, 2.0}}, {160, 170, 180}, 1.0), lane::UsageError);
}

TEST_CASE("relative threshold trims a lane faint ends and fill_gaps interpolates between detections", "[eval][fast]") {
  PostprocessOptions opts;
  opts.blur_kernel = 1;
  // A vertical lane at map column 100 (frame x 200): peak 0.9 on most rows, 0.4 on the first
  // and last 30 map rows (a fading end), nothing on map rows 150..189 (a gap between dashes).
  cv::Mat m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  m.col(100).setTo(0.9f);
  m(cv::Rect(100, 0, 1, 30)).setTo(0.4f);
  m(cv::Rect(100, kMapH - 30, 1, 30)).setTo(0.4f);
  m(cv::Rect(100, 150, 1, 40)).setTo(0.0f);
  auto row_of = [](int y) { return static_cast<int>(y * static_cast<double>(kMapH) / 720); };
  SECTION("off: every row above 0.3 is a point, the gap stays empty") {
    const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
    REQUIRE(lanes.size() == 1);
    for (size_t k = 0; k < 56; ++k) {
      const int r = row_of(160 + 10 * static_cast<int>(k));
      CHECK((lanes[0][k] >= 0) == !(r >= 150 && r < 190));
    }
  }
  SECTION("relative 0.6 drops the 0.4 rows (0.4 < 0.6 x median 0.9), keeps the 0.9 ones") {
    opts.relative_threshold = 0.6;
    const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
    REQUIRE(lanes.size() == 1);
    for (size_t k = 0; k < 56; ++k) {
      const int r = row_of(160 + 10 * static_cast<int>(k));
      const bool faint = r >= kMapH - 30, gap = r >= 150 && r < 190;
      INFO("map row " << r);
      CHECK((lanes[0][k] >= 0) == (!faint && !gap));
    }
  }
  SECTION("fill_gaps: the rows of the gap get the interpolated x") {
    opts.fill_gaps = true;
    const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
    REQUIRE(lanes.size() == 1);
    for (size_t k = 0; k < 56; ++k) CHECK(lanes[0][k] == 200.0);
  }
}

TEST_CASE("border_columns: rows whose peak is in the border column of the map have no point", "[eval][fast]") {
  // A lane leaving the frame at the right: map column 600 + 2 * (row - 200) up to the border,
  // then (as the blurred, upsampled maps of a network show it) its tail in the last column.
  cv::Mat m = cv::Mat::zeros(kMapH, kMapW, CV_32F);
  for (int r = 100; r < kMapH; ++r) m.at<float>(r, std::min(kMapW - 1, 600 + 2 * (r - 200))) = 0.8f;
  PostprocessOptions opts;
  opts.blur_kernel = 1;
  auto row_of = [](int y) { return static_cast<int>(y * static_cast<double>(kMapH) / 720); };
  const int exit_row = 200 + (kMapW - 1 - 600 + 1) / 2;  // first map row in the border column (220)
  SECTION("0 keeps them") {
    const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
    REQUIRE(lanes.size() == 1);
    for (size_t k = 0; k < 56; ++k) CHECK((lanes[0][k] >= 0) == (row_of(160 + 10 * static_cast<int>(k)) >= 100));
  }
  SECTION("1 drops them, keeps the rows inside") {
    opts.border_columns = 1;
    const auto lanes = probabilities_to_lanes({m}, {0.9f}, opts);
    REQUIRE(lanes.size() == 1);
    for (size_t k = 0; k < 56; ++k) {
      const int r = row_of(160 + 10 * static_cast<int>(k));
      INFO("map row " << r);
      CHECK((lanes[0][k] >= 0) == (r >= 100 && r < exit_row));
    }
  }
  opts.border_columns = -1;
  CHECK_THROWS_AS(probabilities_to_lanes({m}, {0.9f}, opts), lane::UsageError);
}
