#include "train/eval/overlay.h"

#include <algorithm>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/eval/tusimple_metric.h"

namespace lane::eval {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
constexpr double kFontScale = 0.6;
constexpr int kRowHeight = 26, kPad = 8, kSwatch = 18;

// x at h_sample k of a GT lane, or of a predicted lane (x for h_samples[k] in both cases).
template <typename T>
std::vector<cv::Point> points_of(const std::vector<T>& xs, const std::vector<int>& ys) {
  std::vector<cv::Point> pts;
  for (size_t k = 0; k < xs.size() && k < ys.size(); ++k)
    if (xs[k] >= 0) pts.emplace_back(static_cast<int>(xs[k] + 0.5), ys[k]);
  return pts;
}

void draw_gt_lane(cv::Mat& frame, const std::vector<cv::Point>& pts, const cv::Scalar& colour) {
  for (size_t i = 1; i < pts.size(); ++i) cv::line(frame, pts[i - 1], pts[i], colour, 3, cv::LINE_8);
}

void draw_pred_lane(cv::Mat& frame, const std::vector<cv::Point>& pts, const cv::Scalar& colour) {
  for (const auto& p : pts) cv::circle(frame, p, 5, colour, cv::FILLED, cv::LINE_8);
}

// A short tag on a white background next to one end of a lane: missed GT lanes at their far
// (top) end, false positives at their near (bottom) end, so that the two rarely overlap. A tag
// that would cover one already drawn moves down (top tags) or up (bottom tags) until it is clear.
void tag(cv::Mat& frame, const std::vector<cv::Point>& pts, const std::string& text, const cv::Scalar& colour,
         bool at_top, std::vector<cv::Rect>& taken) {
  if (pts.empty()) return;
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, 0.5, 1, &baseline);
  cv::Point at = (at_top ? pts.front() : pts.back()) + cv::Point(8, at_top ? 4 : -8);
  at.x = std::clamp(at.x, 0, std::max(0, frame.cols - size.width - 2));
  const int lowest = size.height + 2, highest = frame.rows - 2;
  at.y = std::clamp(at.y, lowest, highest);
  const auto box_at = [&](cv::Point p) { return cv::Rect(p.x - 2, p.y - size.height - 2, size.width + 4, size.height + 4); };
  const int step = (at_top ? 1 : -1) * (size.height + 6);
  for (int tries = 0; tries < 32; ++tries) {
    const cv::Rect box = box_at(at);
    const bool clear = std::none_of(taken.begin(), taken.end(), [&](const cv::Rect& r) { return (r & box).area() > 0; });
    const int next_y = at.y + step;
    if (clear || next_y < lowest || next_y > highest) break;
    at.y = next_y;
  }
  const cv::Rect box = box_at(at);
  cv::rectangle(frame, box, cv::Scalar(255, 255, 255), cv::FILLED);
  cv::putText(frame, text, at, kFont, 0.5, colour, 1, cv::LINE_AA);
  taken.push_back(box);
}

LegendLayout draw_legend(cv::Mat& frame, const std::vector<std::pair<cv::Scalar, std::string>>& entries,
                         const std::string& title) {
  LegendLayout layout;
  int width = cv::getTextSize(title, kFont, kFontScale, 1, nullptr).width;
  for (const auto& e : entries) width = std::max(width, kSwatch + kPad + cv::getTextSize(e.second, kFont, kFontScale, 1, nullptr).width);
  const int rows = static_cast<int>(entries.size()) + (title.empty() ? 0 : 1);
  layout.box = cv::Rect(kPad, kPad, width + 2 * kPad, rows * kRowHeight + kPad);
  layout.box &= cv::Rect(0, 0, frame.cols, frame.rows);
  cv::rectangle(frame, layout.box, cv::Scalar(255, 255, 255), cv::FILLED);
  cv::rectangle(frame, layout.box, cv::Scalar(0, 0, 0), 1);
  int y = layout.box.y + kPad;
  if (!title.empty()) {
    cv::putText(frame, title, {layout.box.x + kPad, y + kSwatch - 3}, kFont, kFontScale, cv::Scalar(0, 0, 0), 1, cv::LINE_AA);
    y += kRowHeight;
  }
  for (const auto& [colour, label] : entries) {
    const cv::Rect swatch(layout.box.x + kPad, y, kSwatch, kSwatch);
    cv::rectangle(frame, swatch, colour, cv::FILLED);
    cv::putText(frame, label, {swatch.x + kSwatch + kPad, y + kSwatch - 3}, kFont, kFontScale, cv::Scalar(0, 0, 0), 1,
                cv::LINE_AA);
    layout.swatches.push_back(swatch);
    layout.labels.push_back(label);
    y += kRowHeight;
  }
  return layout;
}

}  // namespace

LegendLayout draw_lane_overlay(cv::Mat& frame, const std::vector<std::vector<double>>& lanes,
                               const std::vector<int>& h_samples, const std::optional<data::LaneLabel>& truth,
                               double run_time_ms) {
  if (frame.empty() || frame.type() != CV_8UC3) throw UsageError("overlay: the frame must be a non-empty BGR image");
  if (!truth) {
    for (const auto& lane : lanes) draw_pred_lane(frame, points_of(lane, h_samples), kPredOnlyColour);
    return draw_legend(frame, {{kPredOnlyColour, fmt::format("prediction ({} lanes)", lanes.size())}}, "");
  }
  // The metric compares x at the label's own h_samples; predictions were made at those rows.
  const FrameMatch m = match_frame(lanes, truth->lanes, truth->h_samples, run_time_ms);
  for (size_t g = 0; g < truth->lanes.size(); ++g)
    draw_gt_lane(frame, points_of(truth->lanes[g], truth->h_samples), m.gt_matched[g] ? kGtMatchedColour : kGtMissedColour);
  for (size_t p = 0; p < lanes.size(); ++p)
    draw_pred_lane(frame, points_of(lanes[p], h_samples), m.pred_matched[p] ? kPredMatchedColour : kPredFalseColour);
  std::vector<cv::Rect> tags;
  for (size_t g = 0; g < truth->lanes.size(); ++g)
    if (!m.gt_matched[g])
      tag(frame, points_of(truth->lanes[g], truth->h_samples), fmt::format("missed ({:.0f}% pts)", 100 * m.gt_accuracy[g]),
          kGtMissedColour, /*at_top=*/true, tags);
  for (size_t p = 0; p < lanes.size(); ++p)
    if (!m.pred_matched[p]) tag(frame, points_of(lanes[p], h_samples), "false positive", kPredFalseColour, false, tags);
  const std::string title =
      m.rejected ? fmt::format("rejected by the metric (run_time {:.0f} ms > 200 or too many lanes)", run_time_ms)
                 : fmt::format("accuracy {:.3f}  FP {:.3f}  FN {:.3f}", m.score.accuracy, m.score.fp, m.score.fn);
  LegendLayout layout = draw_legend(frame,
                     {{kGtMatchedColour, "ground truth, matched"},
                      {kGtMissedColour, "ground truth, missed"},
                      {kPredMatchedColour, "prediction, matched"},
                      {kPredFalseColour, "prediction, false positive"}},
                     title);
  layout.tags = std::move(tags);
  return layout;
}

}  // namespace lane::eval
