// Segmentation targets: slot assignment, rendering and existence, checked against the
// existence flags of the reference list6 files on the real label files.
#include <map>

#include <catch2/catch.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "data_test_util.h"
#include "test_paths.h"
#include "train/data/lane_masks.h"
#include "train/data/list_writer.h"
#include "train/data/tusimple_labels.h"

using namespace lane;

namespace {

// Fraction of list lines whose existence flags equal ours for the label with that raw_file.
double agreement(const std::vector<data::LaneLabel>& labels, const std::filesystem::path& list, size_t* matched) {
  std::map<std::string, const data::LaneLabel*> by_file;
  for (const auto& l : labels) by_file[l.raw_file] = &l;
  size_t same = 0;
  *matched = 0;
  const auto entries = data::load_list_file(list);
  for (const auto& e : entries) {
    auto it = by_file.find(e.image);
    if (it == by_file.end()) continue;
    ++*matched;
    same += data::lane_existence(*it->second, 6) == e.existence;
  }
  return *matched ? double(same) / double(*matched) : 0.0;
}

data::LaneLabel two_lane_label() {
  // A left lane leaning right towards the top (angle < 90) and a right lane leaning left.
  data::LaneLabel l;
  l.raw_file = "clips/x/1/20.jpg";
  for (int y = 400; y <= 700; y += 50) l.h_samples.push_back(y);
  std::vector<int> left, right;
  for (int y : l.h_samples) {
    left.push_back(600 - (y - 400));   // x = 600 at top, 300 at bottom
    right.push_back(700 + (y - 400));  // x = 700 at top, 1000 at bottom
  }
  l.lanes = {right, left};  // label order is not the slot order
  return l;
}

// The reference scripts' mask: one polyline through all of a slot lane's points, bridging any
// rows the label leaves out between them.
cv::Mat bridged_mask(const data::LaneLabel& label, int lane_slots, cv::Size size) {
  cv::Mat mask = cv::Mat::zeros(size, CV_8UC1);
  const double sx = double(size.width) / data::kFrameWidth, sy = double(size.height) / data::kFrameHeight;
  const bool full = size == cv::Size(data::kFrameWidth, data::kFrameHeight);
  const int thickness = full ? data::kMaskThickness : std::max(1, int(std::lround(data::kMaskThickness * std::sqrt(sx * sy))));
  const auto slots = data::assign_lane_slots(label, lane_slots);
  for (int s = 0; s < lane_slots; ++s) {
    if (!slots[size_t(s)].drawn) continue;
    std::vector<cv::Point> pts;
    for (const auto& p : slots[size_t(s)].points)
      pts.push_back(full ? p : cv::Point(int(std::lround(p.x * sx)), int(std::lround(p.y * sy))));
    for (size_t i = 0; i + 1 < pts.size(); ++i) cv::line(mask, pts[i], pts[i + 1], cv::Scalar(s + 1), thickness);
  }
  return mask;
}

}  // namespace

TEST_CASE("existence flags agree with list6_train and list6_val on the real labels", "[data_layer][fast]") {
  const auto dir = test::tusimple_dir();
  auto train = data::load_label_files({dir / "label_data_0313.json", dir / "label_data_0601.json"}).labels;
  const auto val = data::load_label_file(dir / "label_data_0531.json").labels;
  size_t matched = 0;
  const double train_agree = agreement(train, dir / "lists/list6_train.txt", &matched);
  CHECK(matched == 3268);
  CHECK(train_agree >= 0.98);
  const double val_agree = agreement(val, dir / "lists/list6_val.txt", &matched);
  CHECK(matched == 358);
  CHECK(val_agree >= 0.98);
  WARN("existence agreement: train " << train_agree << ", val " << val_agree);
}

TEST_CASE("ego lanes take the middle slots in both slot layouts", "[data_layer][fast]") {
  const auto label = two_lane_label();
  CHECK(data::lane_existence(label, 6) == std::vector<int>{0, 0, 1, 1, 0, 0});
  CHECK(data::lane_existence(label, 4) == std::vector<int>{0, 1, 1, 0});
  const auto slots = data::assign_lane_slots(label, 6);
  REQUIRE(slots[2].points.size() == 7);
  CHECK(slots[2].points.front() == cv::Point(600, 400));  // ego-left is the left lane
  CHECK(slots[3].points.front() == cv::Point(700, 400));
}

TEST_CASE("further lanes fill outer slots in angle order, and short lanes are not drawn", "[data_layer][fast]") {
  auto label = two_lane_label();
  std::vector<int> far_left, far_right, short_right(label.h_samples.size(), data::kNoPoint);
  for (int y : label.h_samples) {
    far_left.push_back(500 - 2 * (y - 400));
    far_right.push_back(800 + 2 * (y - 400));
  }
  short_right[5] = 1200, short_right[6] = 1270;  // 2 points: slot assigned, never drawn
  label.lanes.push_back(far_left);
  label.lanes.push_back(far_right);
  label.lanes.push_back(short_right);
  // Angles: far_left 26.6 < left 45 < 90 < right 135 < short_right 144.5 < far_right 153.4.
  CHECK(data::lane_existence(label, 6) == std::vector<int>{0, 1, 1, 1, 0, 1});
  const auto slots = data::assign_lane_slots(label, 6);
  CHECK(slots[4].points.size() == 2);  // assigned by angle, but too short to draw
  CHECK_FALSE(slots[4].drawn);
  CHECK(slots[5].points.front() == cv::Point(800, 400));
  CHECK(slots[1].points.front() == cv::Point(500, 400));
  CHECK(data::lane_existence(label, 4) == std::vector<int>{1, 1, 1, 0});
}

TEST_CASE("masks are drawn with value slot+1 and thickness 15", "[data_layer][fast]") {
  const auto label = two_lane_label();
  const cv::Mat mask = data::render_lane_mask(label, 6);
  REQUIRE(mask.rows == 720);
  REQUIRE(mask.cols == 1280);
  CHECK(mask.at<uchar>(550, 450) == 3);  // on the ego-left line (x = 600 - 150)
  CHECK(mask.at<uchar>(550, 850) == 4);  // on the ego-right line
  CHECK(mask.at<uchar>(550, 455) == 3);  // within half of 15 px (horizontally ~5 px is ~3.5 px normal)
  CHECK(mask.at<uchar>(550, 470) == 0);  // 20 px away
  CHECK(mask.at<uchar>(100, 640) == 0);
  double minv, maxv;
  cv::minMaxLoc(mask, &minv, &maxv);
  CHECK(maxv == 4);
  // A scaled render keeps the classes at the scaled positions.
  const cv::Mat small = data::render_lane_mask(label, 6, cv::Size(640, 360));
  CHECK(small.at<uchar>(275, 225) == 3);
  CHECK(small.at<uchar>(275, 425) == 4);
}

TEST_CASE("a lane is not drawn across rows its label leaves out (a vehicle gap)", "[data_layer][fast]") {
  auto label = two_lane_label();  // h_samples 400, 450, ..., 700; ego-left x = 600 - (y - 400)
  auto& left = label.lanes[1];
  left[1] = data::kNoPoint;  // y 450 and 550 hidden: pieces {400}, {500}, {600, 650, 700}
  left[3] = data::kNoPoint;
  const cv::Mat mask = data::render_lane_mask(label, 6);
  CHECK(data::lane_existence(label, 6) == std::vector<int>{0, 0, 1, 1, 0, 0});
  CHECK(mask.at<uchar>(450, 550) == 0);  // on the line through the gap: not drawn
  CHECK(mask.at<uchar>(550, 450) == 0);
  CHECK(mask.at<uchar>(425, 575) == 0);
  CHECK(mask.at<uchar>(400, 600) == 3);  // a lone labelled point is a dot
  CHECK(mask.at<uchar>(500, 500) == 3);
  CHECK(mask.at<uchar>(625, 375) == 3);  // the joined piece
  CHECK(mask.at<uchar>(550, 850) == 4);  // the other lane has no gap
  // The reference scripts' polyline would bridge both gaps.
  const cv::Mat bridged = bridged_mask(label, 6, mask.size());
  CHECK(bridged.at<uchar>(450, 550) == 3);
  CHECK(cv::countNonZero(mask != bridged) > 0);
  // Scaled renders keep the gap.
  const cv::Mat small = data::render_lane_mask(label, 6, cv::Size(224, 128));
  CHECK(small.at<uchar>(80, 96) == 0);  // (x 550, y 450) scaled
  CHECK(bridged_mask(label, 6, small.size()).at<uchar>(80, 96) == 3);
}

TEST_CASE("lanes without inner gaps render as the reference polyline (real labels)", "[data_layer][fast]") {
  // The real TuSimple labels have no unlabelled row inside a lane, so their masks are unchanged.
  const auto labels = data::load_label_file(test::tusimple_dir() / "label_data_0601.json").labels;
  REQUIRE(labels.size() == 410);
  for (const auto& size : {cv::Size(1280, 720), cv::Size(224, 128)}) {
    int differing = 0;
    for (const auto& l : labels)
      differing += cv::countNonZero(data::render_lane_mask(l, 6, size) != bridged_mask(l, 6, size)) > 0;
    INFO(size);
    CHECK(differing == 0);
  }
  const auto label = two_lane_label();
  CHECK(cv::countNonZero(data::render_lane_mask(label, 6) != bridged_mask(label, 6, cv::Size(1280, 720))) == 0);
}

TEST_CASE("real labels render only classes of present slots", "[data_layer][fast]") {
  const auto labels = data::load_label_file(test::tusimple_dir() / "label_data_0601_first6.json").labels;
  for (const auto& l : labels) {
    const cv::Mat mask = data::render_lane_mask(l, 6);
    const auto exist = data::lane_existence(l, 6);
    for (int s = 0; s < 6; ++s) {
      INFO(l.raw_file << " slot " << s);
      CHECK((cv::countNonZero(mask == s + 1) > 0) == (exist[size_t(s)] == 1));
    }
    CHECK(cv::countNonZero(mask > 6) == 0);
  }
}

TEST_CASE("write_list_file writes lines the list reader reads back", "[data_layer][fast]") {
  test::TempDir dir("lists");
  const auto labels = data::load_label_file(test::tusimple_dir() / "label_data_0601_first6.json").labels;
  data::write_list_file(dir.path() / "list6_train.txt", labels, 6);
  const std::string text = test::slurp(dir.path() / "list6_train.txt");
  CHECK(text.rfind("/clips/0601/1494453497604532231/20.jpg /seg_label/0601/1494453497604532231/20.png ", 0) == 0);
  const auto entries = data::load_list_file(dir.path() / "list6_train.txt");
  REQUIRE(entries.size() == labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    CHECK(entries[i].image == labels[i].raw_file);
    CHECK(entries[i].existence == data::lane_existence(labels[i], 6));
  }
  data::write_list_file(dir.path() / "list4.txt", labels, 4);
  CHECK(data::load_list_file(dir.path() / "list4.txt")[0].existence.size() == 4);
  CHECK_THROWS_AS(data::write_list_file(dir.path() / "bad.txt", labels, 5), UsageError);
}
