// Overlays: ground truth and prediction in their colours, each lane marked as the official
// metric decided (matched / missed / false positive), with a legend.
#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "train/eval/overlay.h"
#include "train/eval/postprocess.h"
#include "train/eval/tusimple_metric.h"

using namespace lane;

namespace {

bool is_colour(const cv::Mat& img, cv::Point at, const cv::Scalar& c) {
  const auto p = img.at<cv::Vec3b>(at);
  return p[0] == c[0] && p[1] == c[1] && p[2] == c[2];
}

int count_colour(const cv::Mat& img, const cv::Rect& r, const cv::Scalar& c) {
  int n = 0;
  for (int y = r.y; y < r.br().y; ++y)
    for (int x = r.x; x < r.br().x; ++x) n += is_colour(img, {x, y}, c);
  return n;
}

// A vertical GT lane at x over all rows.
std::vector<int> gt_lane(int x) { return std::vector<int>(eval::default_h_samples().size(), x); }
std::vector<double> pred_lane(double x) { return std::vector<double>(eval::default_h_samples().size(), x); }

}  // namespace

TEST_CASE("overlay: matched, missed and false-positive lanes in their colours, with a legend", "[eval][fast]") {
  data::LaneLabel truth;
  truth.h_samples = eval::default_h_samples();
  truth.lanes = {gt_lane(300), gt_lane(700)};  // lane 300 is found, lane 700 missed
  const std::vector<std::vector<double>> pred = {pred_lane(305), pred_lane(1100)};  // 1100: no GT there
  cv::Mat frame(720, 1280, CV_8UC3, cv::Scalar(90, 90, 90));
  const auto legend = eval::draw_lane_overlay(frame, pred, eval::default_h_samples(), truth, 10.0);

  // The same decisions as the metric.
  const auto m = eval::match_frame(pred, truth.lanes, truth.h_samples, 10.0);
  REQUIRE(m.gt_matched == std::vector<bool>{true, false});
  REQUIRE(m.pred_matched == std::vector<bool>{true, false});

  // Predicted points (drawn on top) at every h_sample; GT lines between the dots.
  CHECK(is_colour(frame, {305, 400}, eval::kPredMatchedColour));
  CHECK(is_colour(frame, {1100, 400}, eval::kPredFalseColour));
  CHECK(is_colour(frame, {700, 405}, eval::kGtMissedColour));
  CHECK(is_colour(frame, {300, 415}, eval::kGtMatchedColour));  // GT line between two predicted dots' rows
  // Background untouched away from lanes and legend.
  CHECK(is_colour(frame, {900, 600}, cv::Scalar(90, 90, 90)));

  // Legend: four entries in the overlay's colours, inside the frame, titled with the score.
  REQUIRE(legend.swatches.size() == 4);
  CHECK(legend.labels[0] == "ground truth, matched");
  CHECK(legend.labels[3] == "prediction, false positive");
  const cv::Scalar colours[] = {eval::kGtMatchedColour, eval::kGtMissedColour, eval::kPredMatchedColour,
                                eval::kPredFalseColour};
  for (size_t i = 0; i < 4; ++i) CHECK(count_colour(frame, legend.swatches[i], colours[i]) == legend.swatches[i].area());
  CHECK((legend.box & cv::Rect(0, 0, 1280, 720)) == legend.box);
}

TEST_CASE("overlay: without labels only the prediction is drawn, with a one-entry legend", "[eval][fast]") {
  cv::Mat frame(720, 1280, CV_8UC3, cv::Scalar(90, 90, 90));
  const auto legend = eval::draw_lane_overlay(frame, {pred_lane(640)}, eval::default_h_samples(), std::nullopt, 10.0);
  CHECK(is_colour(frame, {640, 500}, eval::kPredOnlyColour));
  REQUIRE(legend.labels.size() == 1);
  CHECK(count_colour(frame, legend.swatches[0], eval::kPredOnlyColour) == legend.swatches[0].area());
  CHECK(count_colour(frame, cv::Rect(0, 0, 1280, 720), eval::kGtMatchedColour) == 0);
}

TEST_CASE("overlay: a frame the metric rejects (run_time over 200 ms) marks every lane as not matched", "[eval][fast]") {
  data::LaneLabel truth;
  truth.h_samples = eval::default_h_samples();
  truth.lanes = {gt_lane(300)};
  cv::Mat frame(720, 1280, CV_8UC3, cv::Scalar(90, 90, 90));
  eval::draw_lane_overlay(frame, {pred_lane(300)}, eval::default_h_samples(), truth, 500.0);
  CHECK(is_colour(frame, {300, 400}, eval::kPredFalseColour));
}

TEST_CASE("overlay: tags of lanes that end close together do not cover each other", "[eval][fast]") {
  data::LaneLabel truth;
  truth.h_samples = eval::default_h_samples();
  // Three GT lanes 10 px apart, none predicted: three "missed" tags at almost the same far end.
  truth.lanes = {gt_lane(600), gt_lane(610), gt_lane(620)};
  // Two predictions far from every GT lane, 12 px apart: two "false positive" tags at the bottom.
  const std::vector<std::vector<double>> pred = {pred_lane(1000), pred_lane(1012)};
  cv::Mat frame(720, 1280, CV_8UC3, cv::Scalar(90, 90, 90));
  const auto layout = eval::draw_lane_overlay(frame, pred, eval::default_h_samples(), truth, 10.0);

  REQUIRE(layout.tags.size() == 5);
  const cv::Rect whole(0, 0, frame.cols, frame.rows);
  for (size_t i = 0; i < layout.tags.size(); ++i) {
    CHECK((layout.tags[i] & whole) == layout.tags[i]);
    for (size_t j = i + 1; j < layout.tags.size(); ++j) {
      INFO("tags " << i << " and " << j);
      CHECK((layout.tags[i] & layout.tags[j]).area() == 0);
    }
  }
  // Each tag is still next to its lane end: the missed ones near the top, the others near the bottom.
  for (size_t i = 0; i < 3; ++i) CHECK(layout.tags[i].y < 260);
  for (size_t i = 3; i < 5; ++i) CHECK(layout.tags[i].br().y > 600);
}
