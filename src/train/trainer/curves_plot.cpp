#include "train/trainer/curves_plot.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "common/error.h"

namespace lane::train {
namespace {

constexpr int kPanelW = 560, kPanelH = 400, kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;

void draw_panel(cv::Mat& canvas, int x0, const Series& s, const std::string& title, const std::string& ylabel,
                const cv::Scalar& color) {
  const cv::Scalar black(0, 0, 0), grey(200, 200, 200);
  const int w = kPanelW - kLeft - kRight, h = kPanelH - kTop - kBottom;
  const cv::Point origin(x0 + kLeft, kTop + h);
  cv::putText(canvas, title, {x0 + kLeft, 25}, cv::FONT_HERSHEY_SIMPLEX, 0.6, black, 1, cv::LINE_AA);
  cv::putText(canvas, "step", {x0 + kLeft + w / 2 - 15, kPanelH - 10}, cv::FONT_HERSHEY_SIMPLEX, 0.5, black, 1, cv::LINE_AA);
  cv::putText(canvas, ylabel, {x0 + 5, kTop - 10}, cv::FONT_HERSHEY_SIMPLEX, 0.45, black, 1, cv::LINE_AA);
  cv::rectangle(canvas, {origin.x, kTop}, {origin.x + w, origin.y}, black, 1);
  if (s.empty()) {
    cv::putText(canvas, "no data", {origin.x + w / 2 - 30, kTop + h / 2}, cv::FONT_HERSHEY_SIMPLEX, 0.6, black, 1, cv::LINE_AA);
    return;
  }
  double xmin = s.front().first, xmax = s.front().first, ymin = s.front().second, ymax = s.front().second;
  for (const auto& [x, y] : s) {
    xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
  }
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1, ymin -= 1;
  auto to_px = [&](double x, double y) {
    return cv::Point(origin.x + static_cast<int>((x - xmin) / (xmax - xmin) * w),
                     origin.y - static_cast<int>((y - ymin) / (ymax - ymin) * h));
  };
  for (int i = 0; i <= 4; ++i) {  // ticks and grid lines
    const double fy = ymin + (ymax - ymin) * i / 4, fx = xmin + (xmax - xmin) * i / 4;
    const int py = origin.y - h * i / 4, px = origin.x + w * i / 4;
    cv::line(canvas, {origin.x, py}, {origin.x + w, py}, grey, 1);
    cv::putText(canvas, fmt::format("{:.3g}", fy), {x0 + 5, py + 4}, cv::FONT_HERSHEY_SIMPLEX, 0.4, black, 1, cv::LINE_AA);
    cv::putText(canvas, fmt::format("{:.0f}", fx), {px - 10, origin.y + 18}, cv::FONT_HERSHEY_SIMPLEX, 0.4, black, 1, cv::LINE_AA);
  }
  for (size_t i = 1; i < s.size(); ++i)
    cv::line(canvas, to_px(s[i - 1].first, s[i - 1].second), to_px(s[i].first, s[i].second), color, 2, cv::LINE_AA);
  if (s.size() == 1) cv::circle(canvas, to_px(s[0].first, s[0].second), 3, color, -1);
}

}  // namespace

void plot_training_curves(const std::filesystem::path& png, const Series& loss, const Series& val_accuracy) {
  cv::Mat canvas(kPanelH, 2 * kPanelW, CV_8UC3, cv::Scalar(255, 255, 255));
  draw_panel(canvas, 0, loss, "training loss", "loss", cv::Scalar(200, 80, 0));
  draw_panel(canvas, kPanelW, val_accuracy, "validation accuracy (TuSimple)", "accuracy", cv::Scalar(0, 140, 0));
  if (!cv::imwrite(png.string(), canvas)) throw Error("cannot write '" + png.string() + "'");
}

}  // namespace lane::train
