#pragma once
// Segmentation targets from TuSimple labels, exactly as the common preprocessing scripts
// (docs/data.md): lanes are ordered by angle, assigned to ego-centred slots, and each slot
// lane with at least 4 points is drawn as a thick polyline of value slot+1. Unlike the reference
// scripts, the polyline is broken where the label has no point between two points (a lane hidden
// behind a vehicle in scnn-train synth's labels; real TuSimple labels have no such inner gaps).
#include <array>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "train/data/tusimple_labels.h"

namespace lane::data {

inline constexpr int kFrameHeight = 720;
inline constexpr int kFrameWidth = 1280;
inline constexpr int kMaskThickness = 15;     // SEG_WIDTH / 2 of the reference scripts
inline constexpr int kMinPointsToDraw = 4;    // slot lanes with fewer points are not drawn

struct SlotLane {
  std::vector<cv::Point> points;  // valid (x >= 0) points, top to bottom
  std::vector<int> rows;          // index in the label's h_samples of each point
  bool drawn = false;             // has >= kMinPointsToDraw points -> rendered, existence 1
};

// Lanes of `label` assigned to `lane_slots` slots (4 or 6; slot lane_slots/2-1 is ego-left).
// Slots without a lane hold an empty SlotLane.
std::vector<SlotLane> assign_lane_slots(const LaneLabel& label, int lane_slots);

// The existence vector (0/1 per slot) of `label`.
std::vector<int> lane_existence(const LaneLabel& label, int lane_slots);

// A CV_8UC1 mask of `size` (default the 720x1280 TuSimple frame): 0 background, slot+1 on
// slot lanes. The label's coordinates are pixels of a frame of `label_frame` (default 1280x720),
// scaled to `size` when it differs. Lines are kMaskThickness thick on a 1280x720 mask and scale
// with the mask's size. Consecutive points are joined only when they sit on consecutive
// h_samples (no gap between).
cv::Mat render_lane_mask(const LaneLabel& label, int lane_slots,
                         cv::Size size = cv::Size(kFrameWidth, kFrameHeight),
                         cv::Size label_frame = cv::Size(kFrameWidth, kFrameHeight));

// Empty when the label's points fit a frame of `frame` size; otherwise what does not ("points
// down to row 710 but the frame is 512x288"): labels made for frames of another size.
std::string label_outside_frame(const LaneLabel& label, cv::Size frame);

// Throws lane::UsageError unless lane_slots is 4 or 6.
void check_lane_slots(int lane_slots);

}  // namespace lane::data
