// The official TuSimple metric: sanity checks on real labels and one case per lane.py rule.
#include <catch2/catch.hpp>

#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "test_paths.h"
#include "train/data/tusimple_labels.h"
#include "train/eval/tusimple_metric.h"

namespace fs = std::filesystem;
using lane::eval::FrameScore;
using lane::eval::PredictionLine;
using lane::eval::score_frame;
using Catch::Matchers::Contains;

namespace {

// Rows 0, 10, ..., 10*(n-1).
std::vector<int> rows(int n) {
  std::vector<int> ys;
  for (int i = 0; i < n; ++i) ys.push_back(10 * i);
  return ys;
}

std::vector<int> constant_lane(int x, int n) { return std::vector<int>(n, x); }
std::vector<double> constant_pred(double x, int n) { return std::vector<double>(n, x); }

// Copies a label file adding "run_time" to every line, as a submission would carry it
// (a text edit before the closing brace: parsing 3.5 MB twice is slow in sanitizer builds).
fs::path with_run_time(const fs::path& src, const fs::path& dst, double run_time) {
  std::ifstream in(src);
  std::ofstream out(dst);
  std::string line;
  while (std::getline(in, line)) {
    const auto close = line.rfind('}');
    REQUIRE(close != std::string::npos);
    out << line.substr(0, close) << ", \"run_time\": " << run_time << line.substr(close) << "\n";
  }
  return dst;
}

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("lane-test-eval-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("ground truth scored against itself is perfect (test_label.json)", "[eval][fast]") {
  const fs::path dir = temp_dir("self");
  const fs::path gt = lane::test::tusimple_dir() / "test_label.json";
  const fs::path pred = with_run_time(gt, dir / "pred.json", 50);
  const auto m = lane::eval::evaluate_files(pred, gt);
  CHECK(m.frames == 2782);
  CHECK(m.accuracy == 1.0);
  CHECK(m.fp == 0.0);
  CHECK(m.fn == 0.0);
  const auto j = m.to_official_json();
  REQUIRE(j.size() == 3);
  CHECK(j[0]["name"] == "Accuracy");
  CHECK(j[0]["order"] == "desc");
  CHECK(j[1]["name"] == "FP");
  CHECK(j[2]["name"] == "FN");
  CHECK(j[2]["order"] == "asc");
  fs::remove_all(dir);
}

TEST_CASE("TuSimple's example prediction scores as derived from its single differing line", "[eval][fast]") {
  const fs::path dir = temp_dir("example");
  const fs::path gt = lane::test::tusimple_dir() / "label_data_0313.json";
  const fs::path pred = with_run_time(lane::test::tusimple_dir() / "tusimple_example_pred_0313.json",
                                      dir / "pred.json", 100);
  const auto m = lane::eval::evaluate_files(pred, gt);
  REQUIRE(m.frames == 2858);
  // Every line but clips/0313-1/6040 equals the GT: per-frame (acc 1, fp 0, fn 0).
  // In 6040 the pred holds the GT lanes in the order [B', C, D, A]: A, C and D are exact.
  // B' is GT lane B (x 719..1265 over rows 280..660, slope ~546/380 = 1.44, so the
  // angle-adjusted threshold is 20*sqrt(1+1.44^2) ~ 35 px) corrupted as follows, 48 rows:
  //   rows 240-270: both -2                      -> 4 hits
  //   row 280: 800 vs 719 (81 px)                -> miss
  //   row 290: 760 vs 734 (26 px < 35)           -> hit
  //   rows 300-540: identical (25 rows)          -> 25 hits
  //   rows 550-600: shifted by +100 px (6 rows)  -> misses
  //   rows 610-660: pred -2, GT valid (6 rows)   -> misses
  //   rows 670-710: both -2 (5 rows)             -> 5 hits
  // best accuracy for B = 35/48 < 0.85 -> fn 1; matched 3 of 4 predicted lanes -> fp 1.
  const double bad_frame_acc = (3.0 + 35.0 / 48.0) / 4.0;
  const double n = 2858.0;
  CHECK(m.accuracy == Approx((2857.0 + bad_frame_acc) / n).epsilon(1e-12));
  CHECK(m.fp == Approx(0.25 / n).epsilon(1e-12));
  CHECK(m.fn == Approx(0.25 / n).epsilon(1e-12));
  fs::remove_all(dir);
}

TEST_CASE("strict < against the 20 px threshold for a vertical lane", "[eval][fast]") {
  const int n = 10;
  const auto gt = constant_lane(500, n);
  CHECK(score_frame({constant_pred(519.999, n)}, {gt}, rows(n), 10).accuracy == 1.0);
  CHECK(score_frame({constant_pred(520.0, n)}, {gt}, rows(n), 10).accuracy == 0.0);
  CHECK(score_frame({constant_pred(480.0, n)}, {gt}, rows(n), 10).accuracy == 0.0);
}

TEST_CASE("threshold grows with the GT lane's angle: 20 / cos(atan(k))", "[eval][fast]") {
  // x = 100 + 0.75*y -> k = 0.75, cos(atan(k)) = 0.8, threshold 25 px.
  std::vector<int> ys, gt;
  for (int i = 0; i < 10; ++i) ys.push_back(40 * i), gt.push_back(100 + 30 * i);
  auto shifted = [&](double dx) {
    std::vector<double> p;
    for (int x : gt) p.push_back(x + dx);
    return p;
  };
  CHECK(score_frame({shifted(24.9)}, {gt}, ys, 10).accuracy == 1.0);  // would miss at a flat 20 px
  CHECK(score_frame({shifted(25.1)}, {gt}, ys, 10).accuracy == 0.0);
  // The slope ignores the GT's missing (-2) points: the same lane with holes keeps 25 px.
  std::vector<int> holed = gt;
  holed[0] = -2, holed[9] = -2;
  std::vector<double> pred = shifted(24.9);
  pred[0] = -2, pred[9] = -2;
  CHECK(score_frame({pred}, {holed}, ys, 10).accuracy == 1.0);
}

TEST_CASE("negative values become -100 and every h_sample is in the denominator", "[eval][fast]") {
  const int n = 10;
  std::vector<int> gt(n, -2);
  gt[3] = 0, gt[4] = 10, gt[5] = 20;  // x = 0 is a real point
  std::vector<double> pred(n, -0.5);  // any negative means "no point"
  pred[3] = 0, pred[4] = 10, pred[5] = 20;
  CHECK(score_frame({pred}, {gt}, rows(n), 10).accuracy == 1.0);
  // A predicted point where the GT has none counts against the row (|x - (-100)| >= 20).
  pred[0] = 5;
  CHECK(score_frame({pred}, {gt}, rows(n), 10).accuracy == Approx(0.9));
  // Only 3 labelled rows, yet the denominator is 10: getting those 3 wrong leaves 7/10.
  std::vector<double> wrong(n, -2);
  const FrameScore s = score_frame({wrong}, {gt}, rows(n), 10);
  CHECK(s.accuracy == Approx(0.7));
  CHECK(s.fn == 1.0);  // 0.7 < 0.85
  CHECK(s.fp == 1.0);
}

TEST_CASE("0.85 point ratio decides matched vs missed", "[eval][fast]") {
  const int n = 20;
  const auto gt = constant_lane(300, n);
  auto pred_with_misses = [&](int misses) {
    auto p = constant_pred(300, n);
    for (int i = 0; i < misses; ++i) p[i] = 900;
    return p;
  };
  const FrameScore ok = score_frame({pred_with_misses(3)}, {gt}, rows(n), 10);  // 17/20 = 0.85
  CHECK(ok.accuracy == Approx(0.85));
  CHECK(ok.fn == 0.0);
  CHECK(ok.fp == 0.0);
  const FrameScore miss = score_frame({pred_with_misses(4)}, {gt}, rows(n), 10);  // 0.80
  CHECK(miss.fn == 1.0);
  CHECK(miss.fp == 1.0);
}

TEST_CASE("no one-to-one matching: one predicted lane can match two GT lanes, fp goes negative", "[eval][fast]") {
  const int n = 10;
  const FrameScore s = score_frame({constant_pred(105, n)}, {constant_lane(100, n), constant_lane(110, n)}, rows(n), 10);
  CHECK(s.accuracy == 1.0);
  CHECK(s.fn == 0.0);
  CHECK(s.fp == -1.0);  // (1 predicted - 2 matched) / 1 predicted
}

TEST_CASE("more than 4 GT lanes: one miss forgiven, the worst accuracy dropped", "[eval][fast]") {
  const int n = 10;
  std::vector<std::vector<int>> gt;
  for (int i = 0; i < 5; ++i) gt.push_back(constant_lane(100 + 200 * i, n));
  std::vector<std::vector<double>> pred;
  for (int i = 0; i < 4; ++i) pred.push_back(constant_pred(100 + 200 * i, n));
  const FrameScore four = score_frame(pred, gt, rows(n), 10);
  CHECK(four.accuracy == 1.0);  // (4 + 0 - min 0) / 4
  CHECK(four.fn == 0.0);        // 1 miss - 1
  CHECK(four.fp == 0.0);

  pred.pop_back();  // now two GT lanes are missed
  const FrameScore three = score_frame(pred, gt, rows(n), 10);
  CHECK(three.accuracy == Approx(0.75));  // (3 + 0 + 0 - 0) / 4
  CHECK(three.fn == Approx(0.25));        // (2 - 1) / 4
  CHECK(three.fp == 0.0);

  // With exactly 4 GT lanes nothing is forgiven.
  gt.pop_back();
  const FrameScore plain = score_frame(pred, gt, rows(n), 10);
  CHECK(plain.accuracy == Approx(0.75));
  CHECK(plain.fn == Approx(0.25));
}

TEST_CASE("too many predicted lanes or run_time over 200 ms scores (0, 0, 1)", "[eval][fast]") {
  const int n = 10;
  const std::vector<std::vector<int>> gt = {constant_lane(100, n), constant_lane(400, n)};
  std::vector<std::vector<double>> pred = {constant_pred(100, n), constant_pred(400, n), constant_pred(700, n),
                                           constant_pred(900, n)};
  const FrameScore four = score_frame(pred, gt, rows(n), 10);  // len(gt) + 2: still scored
  CHECK(four.accuracy == 1.0);
  CHECK(four.fp == Approx(0.5));
  pred.push_back(constant_pred(1100, n));  // len(gt) + 3
  const FrameScore five = score_frame(pred, gt, rows(n), 10);
  CHECK(five.accuracy == 0.0);
  CHECK(five.fp == 0.0);
  CHECK(five.fn == 1.0);

  pred.resize(2);
  CHECK(score_frame(pred, gt, rows(n), 200.0).accuracy == 1.0);
  const FrameScore slow = score_frame(pred, gt, rows(n), 200.5);
  CHECK(slow.accuracy == 0.0);
  CHECK(slow.fp == 0.0);
  CHECK(slow.fn == 1.0);
}

TEST_CASE("no predicted lanes: accuracy 0, fp 0, every GT lane missed", "[eval][fast]") {
  const int n = 10;
  const FrameScore s = score_frame({}, {constant_lane(100, n), constant_lane(400, n)}, rows(n), 10);
  CHECK(s.accuracy == 0.0);
  CHECK(s.fp == 0.0);
  CHECK(s.fn == 1.0);
}

TEST_CASE("a lane length mismatch fails the whole submission, even when run_time is over 200", "[eval][fast]") {
  const int n = 10;
  CHECK_THROWS_WITH(score_frame({constant_pred(1, n - 1)}, {constant_lane(1, n)}, rows(n), 500),
                    Contains("Format of lanes error"));
  const lane::data::LaneLabel label{"clips/a/20.jpg", rows(n), {constant_lane(100, n)}};
  const PredictionLine bad{"clips/a/20.jpg", {constant_pred(100, n + 1)}, 10};
  CHECK_THROWS_AS(lane::eval::evaluate({bad}, {label}), lane::UsageError);
  CHECK_THROWS_WITH(lane::eval::evaluate({bad}, {label}),
                    Contains("prediction line 1") && Contains("Format of lanes error"));
}

TEST_CASE("submission-level errors: count mismatch, unknown or repeated raw_file, empty ground truth", "[eval][fast]") {
  const int n = 10;
  const lane::data::LaneLabel a{"clips/a/20.jpg", rows(n), {constant_lane(100, n)}};
  const lane::data::LaneLabel b{"clips/b/20.jpg", rows(n), {constant_lane(100, n)}};
  const PredictionLine pa{"clips/a/20.jpg", {constant_pred(100, n)}, 10};
  const PredictionLine px{"clips/x/20.jpg", {constant_pred(100, n)}, 10};
  CHECK_THROWS_WITH(lane::eval::evaluate({pa}, {a, b}), Contains("1 lines but the ground truth has 2"));
  CHECK_THROWS_WITH(lane::eval::evaluate({pa, px}, {a, b}),
                    Contains("prediction line 2") && Contains("clips/x/20.jpg") && Contains("does not exist"));
  // A frame predicted twice (the other never): refused, naming both lines; an empty ground truth too.
  CHECK_THROWS_WITH(lane::eval::evaluate({pa, pa}, {a, b}),
                    Contains("prediction line 2: raw_file 'clips/a/20.jpg' is predicted a second time") &&
                        Contains("prediction line 1 has it too"));
  CHECK_THROWS_WITH(lane::eval::evaluate({}, {}), Contains("the ground truth has no frames"));
  // Frames are averaged over the GT: a perfect line and a (0,0,1) line give 0.5 / 0 / 0.5.
  const PredictionLine pb_slow{"clips/b/20.jpg", {constant_pred(100, n)}, 300};
  const auto m = lane::eval::evaluate({pb_slow, pa}, {a, b});
  CHECK(m.frames == 2);
  CHECK(m.accuracy == Approx(0.5));
  CHECK(m.fp == 0.0);
  CHECK(m.fn == Approx(0.5));
}

TEST_CASE("prediction files: missing fields and bad values name file:line", "[eval][fast]") {
  const fs::path dir = temp_dir("files");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const std::string ok = R"({"raw_file":"clips/a/20.jpg","lanes":[[1,2]],"run_time":5})";
  auto err = [&](const fs::path& p) {
    try {
      lane::eval::load_predictions(p);
    } catch (const lane::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto no_raw = write("no_raw.json", ok + "\n" + R"({"lanes":[],"run_time":5})" + "\n");
  CHECK_THAT(err(no_raw), Contains("no_raw.json:2") && Contains("'raw_file'"));
  const auto no_time = write("no_time.json", R"({"raw_file":"x","lanes":[]})" "\n");
  CHECK_THAT(err(no_time), Contains("no_time.json:1") && Contains("'run_time'"));
  const auto no_lanes = write("no_lanes.json", R"({"raw_file":"x","run_time":1})" "\n");
  CHECK_THAT(err(no_lanes), Contains("'lanes'"));
  const auto bad_x = write("bad_x.json", R"({"raw_file":"x","lanes":[[1,"a"]],"run_time":1})" "\n");
  CHECK_THAT(err(bad_x), Contains("bad_x.json:1") && Contains("lane 0"));
  const auto not_json = write("not_json.json", ok + "\n{oops\n");
  CHECK_THAT(err(not_json), Contains("not_json.json:2") && Contains("not valid JSON"));
  const auto inner_blank = write("blank.json", ok + "\n\n" + ok + "\n");
  CHECK_THAT(err(inner_blank), Contains("blank.json:2"));
  // Trailing blank lines are fine.
  CHECK(lane::eval::load_predictions(write("trailing.json", ok + "\n\n")).size() == 1);

  // File-level evaluation names the prediction file and line for a bad lane length.
  const auto gt = write("gt.json", R"({"lanes":[[1,2,3]],"h_samples":[1,2,3],"raw_file":"clips/a/20.jpg"})" "\n");
  try {
    lane::eval::evaluate_files(write("short.json", ok + "\n"), gt);
    FAIL("expected an error");
  } catch (const lane::UsageError& e) {
    CHECK_THAT(std::string(e.what()), Contains("short.json:1") && Contains("Format of lanes error"));
  }
  fs::remove_all(dir);
}
