#pragma once
// Overlay pictures of predicted lanes on a frame. With ground truth, both are drawn in different
// colours and every lane is marked as the official metric decided (match_frame): a GT lane
// matched or missed, a predicted lane matched or a false positive. A legend names the colours
// and the frame's accuracy / FP / FN.
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "train/data/tusimple_labels.h"

namespace lane::eval {

// Colours (BGR). Predicted points are drawn over GT lines.
inline const cv::Scalar kGtMatchedColour{0, 200, 0};       // green line
inline const cv::Scalar kGtMissedColour{255, 0, 255};      // magenta line (not a road-paint colour)
inline const cv::Scalar kPredMatchedColour{255, 90, 0};    // blue dots
inline const cv::Scalar kPredFalseColour{0, 0, 255};       // red dots
inline const cv::Scalar kPredOnlyColour{255, 90, 0};       // prediction without labels: blue dots

// Legend: a white box at the top left, one row per entry with a colour swatch.
struct LegendLayout {
  cv::Rect box;
  std::vector<cv::Rect> swatches;  // in entry order
  std::vector<std::string> labels;
  // The lane tags drawn ("missed (N% pts)", "false positive"), in drawing order. Tags of lanes
  // that end close together (converging at the horizon) are moved apart: no two overlap.
  std::vector<cv::Rect> tags;
};

// Draws `lanes` (x per h_sample, negative = none) on `frame`; with `truth` also the GT lanes and
// the per-lane decisions. Returns the legend it drew.
LegendLayout draw_lane_overlay(cv::Mat& frame, const std::vector<std::vector<double>>& lanes,
                               const std::vector<int>& h_samples, const std::optional<data::LaneLabel>& truth,
                               double run_time_ms);

}  // namespace lane::eval
