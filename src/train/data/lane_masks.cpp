#include "train/data/lane_masks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"

namespace lane::data {
namespace {

struct AngledLane {
  double angle_deg;
  std::vector<cv::Point> points;
  std::vector<int> rows;
};

// Lanes with more than one valid point, with their angle, sorted ascending by angle.
std::vector<AngledLane> angled_lanes(const LaneLabel& label) {
  std::vector<AngledLane> out;
  for (const auto& xs : label.lanes) {
    AngledLane lane;
    for (size_t k = 0; k < xs.size() && k < label.h_samples.size(); ++k)
      if (xs[k] >= 0) {
        lane.points.emplace_back(xs[k], label.h_samples[k]);
        lane.rows.push_back(static_cast<int>(k));
      }
    if (lane.points.size() <= 1) continue;
    const cv::Point& first = lane.points.front();
    const cv::Point& last = lane.points.back();
    lane.angle_deg = std::atan2(double(last.y - first.y), double(first.x - last.x)) * 180.0 / M_PI;
    out.push_back(std::move(lane));
  }
  // Stable, like Python's sorted(): equal angles keep label order.
  std::stable_sort(out.begin(), out.end(),
                   [](const AngledLane& a, const AngledLane& b) { return a.angle_deg < b.angle_deg; });
  return out;
}

}  // namespace

void check_lane_slots(int lane_slots) {
  if (lane_slots != 4 && lane_slots != 6)
    throw UsageError(fmt::format("lane_slots is {}; use 4 (5 classes) or 6 (7 classes)", lane_slots));
}

std::vector<SlotLane> assign_lane_slots(const LaneLabel& label, int lane_slots) {
  check_lane_slots(lane_slots);
  const std::vector<AngledLane> lanes = angled_lanes(label);
  int ego_left = -1, ego_right = -1;
  for (int i = 0; i < int(lanes.size()); ++i) {
    if (lanes[i].angle_deg <= 90) ego_left = i;
    else if (ego_right < 0) ego_right = i;
  }
  const int half = lane_slots / 2;  // slots 0..half-1 left of centre, half..slots-1 right
  std::vector<SlotLane> slots(lane_slots);
  auto place = [&](int slot, int lane_index) {
    if (slot < 0 || slot >= lane_slots || lane_index < 0 || lane_index >= int(lanes.size())) return;
    slots[slot].points = lanes[lane_index].points;
    slots[slot].rows = lanes[lane_index].rows;
    slots[slot].drawn = int(slots[slot].points.size()) >= kMinPointsToDraw;
  };
  if (ego_left >= 0)
    for (int k = 0; k < half; ++k) place(half - 1 - k, ego_left - k);  // k lanes further left
  if (ego_right >= 0)
    for (int k = 0; k < half; ++k) place(half + k, ego_right + k);
  return slots;
}

std::vector<int> lane_existence(const LaneLabel& label, int lane_slots) {
  std::vector<int> exist;
  for (const auto& slot : assign_lane_slots(label, lane_slots)) exist.push_back(slot.drawn ? 1 : 0);
  return exist;
}

cv::Mat render_lane_mask(const LaneLabel& label, int lane_slots, cv::Size size, cv::Size label_frame) {
  // Not Mat::zeros: its MatExpr reads an OpenCV singleton made lazily by double-checked locking
  // without atomics, a data race between decode threads (ThreadSanitizer).
  cv::Mat mask(size, CV_8UC1, cv::Scalar(0));
  const double sx = double(size.width) / label_frame.width, sy = double(size.height) / label_frame.height;
  const bool full = size == label_frame;
  const double tx = double(size.width) / kFrameWidth, ty = double(size.height) / kFrameHeight;
  const bool tusimple_size = size.width == kFrameWidth && size.height == kFrameHeight;
  const int thickness =
      tusimple_size ? kMaskThickness : std::max(1, int(std::lround(kMaskThickness * std::sqrt(tx * ty))));
  const auto slots = assign_lane_slots(label, lane_slots);
  for (int s = 0; s < lane_slots; ++s) {
    if (!slots[s].drawn) continue;
    const auto& pts = slots[s].points;
    const auto& rows = slots[s].rows;
    auto scaled = [&](cv::Point p) {
      return full ? p : cv::Point(int(std::lround(p.x * sx)), int(std::lround(p.y * sy)));
    };
    // Two points are joined only when no row between them is unlabelled (x < 0): a lane the
    // label leaves out (hidden behind a vehicle) is drawn as separate pieces, not through the gap.
    // A point joined to neither neighbour is drawn as a dot of the line's thickness.
    for (size_t i = 0; i < pts.size(); ++i) {
      const bool joins_next = i + 1 < pts.size() && rows[i + 1] == rows[i] + 1;
      const bool joined_prev = i > 0 && rows[i] == rows[i - 1] + 1;
      if (joins_next)
        cv::line(mask, scaled(pts[i]), scaled(pts[i + 1]), cv::Scalar(s + 1), thickness);
      else if (!joined_prev)
        cv::line(mask, scaled(pts[i]), scaled(pts[i]), cv::Scalar(s + 1), thickness);
    }
  }
  return mask;
}

std::string label_outside_frame(const LaneLabel& label, cv::Size frame) {
  int last_row = -1;  // the lowest row that carries a point (rows without one draw nothing)
  for (const auto& xs : label.lanes)
    for (size_t k = 0; k < xs.size() && k < label.h_samples.size(); ++k)
      if (xs[k] >= 0) last_row = std::max(last_row, label.h_samples[k]);
  if (last_row < frame.height) return "";
  return fmt::format("points down to row {} but the frame is {}x{}", last_row, frame.width, frame.height);
}

}  // namespace lane::data
