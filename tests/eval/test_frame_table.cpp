// Per-frame scores: they average to the official aggregate, sort worst first, and the table
// names each frame's overlay.
#include <catch2/catch.hpp>

#include "train/eval/frame_table.h"
#include "train/eval/tusimple_metric.h"

using namespace lane;

namespace {

data::LaneLabel label(const std::string& file, std::vector<int> lane_xs) {
  data::LaneLabel l;
  l.raw_file = file;
  for (int y = 160; y <= 710; y += 10) l.h_samples.push_back(y);
  for (int x : lane_xs) l.lanes.push_back(std::vector<int>(l.h_samples.size(), x));
  return l;
}

std::vector<double> lane_at(double x) { return std::vector<double>(56, x); }

}  // namespace

TEST_CASE("per-frame results: mean equals evaluate(), worst first, overlay names", "[eval][fast]") {
  const std::vector<data::LaneLabel> gt = {label("clips/a/1.jpg", {200, 600}), label("clips/b/2.jpg", {300, 700}),
                                           label("clips/c/3.jpg", {400, 800})};
  const std::vector<eval::PredictionLine> pred = {
      {"clips/a/1.jpg", {lane_at(200), lane_at(600)}, 5},                // perfect
      {"clips/b/2.jpg", {lane_at(300)}, 5},                              // one missed
      {"clips/c/3.jpg", {lane_at(50), lane_at(1000), lane_at(800)}, 5},  // one missed, two false positives
  };
  const auto frames = eval::evaluate_frames(pred, gt);
  REQUIRE(frames.size() == 3);
  const auto aggregate = eval::evaluate(pred, gt);
  const auto mean = eval::mean_of(frames);
  CHECK(mean.accuracy == Approx(aggregate.accuracy));
  CHECK(mean.fp == Approx(aggregate.fp));
  CHECK(mean.fn == Approx(aggregate.fn));
  for (size_t i = 0; i < 3; ++i) {
    const auto one = eval::score_frame(pred[i].lanes, gt[i].lanes, gt[i].h_samples, 5);
    CHECK(frames[i].score.accuracy == one.accuracy);
    CHECK(frames[i].score.fp == one.fp);
  }

  const auto sorted = eval::worst_first(frames);
  // b and c both have accuracy 0.5 and FN 0.5; c has more false positives, so it is worse.
  CHECK(sorted[0].raw_file == "clips/c/3.jpg");
  CHECK(sorted[1].raw_file == "clips/b/2.jpg");
  CHECK(sorted[2].raw_file == "clips/a/1.jpg");
  CHECK(sorted[0].score.fp == Approx(2.0 / 3.0));

  const std::string table = eval::format_frame_table(sorted, 2);
  CHECK(table.find("clips_c_3.png") != std::string::npos);
  CHECK(table.find("clips/b/2.jpg") != std::string::npos);
  CHECK(table.find("clips/a/1.jpg") == std::string::npos);  // limited to 2 rows
  CHECK(table.find("clips/c/3.jpg") < table.find("clips/b/2.jpg"));
}
