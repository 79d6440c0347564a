#include "train/trainer/curves_plot.h"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/data/image_codec.h"
#include "train/trainer/metrics_log.h"

namespace lane::train {
namespace {

constexpr int kPanelW = 560, kPanelH = 420, kLeft = 80, kRight = 20, kTop = 40, kBottom = 60;
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kBlack(0, 0, 0), kGrey(210, 210, 210), kWhite(255, 255, 255);

struct Axis {
  double lo, hi;
};

// Text rotated by 90° (reading upwards), its box centred vertically on `centre_y` at x0.
cv::Rect put_vertical_text(cv::Mat& canvas, const std::string& text, int x0, int centre_y) {
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, 0.5, 1, &baseline);
  cv::Mat strip(size.height + baseline + 4, size.width + 4, CV_8UC3, kWhite);
  cv::putText(strip, text, {2, size.height + 2}, kFont, 0.5, kBlack, 1, cv::LINE_AA);
  cv::Mat rotated;
  cv::rotate(strip, rotated, cv::ROTATE_90_COUNTERCLOCKWISE);
  cv::Rect box(x0, centre_y - rotated.rows / 2, rotated.cols, rotated.rows);
  box &= cv::Rect(0, 0, canvas.cols, canvas.rows);
  rotated(cv::Rect(0, 0, box.width, box.height)).copyTo(canvas(box));
  return box;
}

cv::Rect put_text(cv::Mat& canvas, const std::string& text, cv::Point at, double scale) {
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, scale, 1, &baseline);
  cv::putText(canvas, text, at, kFont, scale, kBlack, 1, cv::LINE_AA);
  return cv::Rect(at.x, at.y - size.height, size.width, size.height + baseline);
}

struct Panel {
  int x0;
  std::string title, xlabel, ylabel;
  std::vector<std::pair<const Series*, cv::Scalar>> series;
  std::vector<std::string> names;  // legend entries (empty: no legend)
  std::optional<Axis> fixed_y;
};

cv::Rect draw_panel(cv::Mat& canvas, const Panel& p, CurvesLayout& layout) {
  const int w = kPanelW - kLeft - kRight, h = kPanelH - kTop - kBottom;
  const cv::Rect plot(p.x0 + kLeft, kTop, w, h);
  put_text(canvas, p.title, {plot.x, 25}, 0.6);
  layout.axis_labels.push_back(put_text(canvas, p.xlabel, {plot.x + w / 2 - 40, kPanelH - 12}, 0.5));
  layout.axis_label_texts.push_back(p.xlabel);
  layout.axis_labels.push_back(put_vertical_text(canvas, p.ylabel, p.x0 + 4, plot.y + h / 2));
  layout.axis_label_texts.push_back(p.ylabel);
  cv::rectangle(canvas, plot, kBlack, 1);

  bool any = false;
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  for (const auto& [s, colour] : p.series)
    for (const auto& [x, y] : *s) {
      if (!any) xmin = xmax = x, ymin = ymax = y, any = true;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  if (!any) {
    put_text(canvas, "no data", {plot.x + w / 2 - 30, plot.y + h / 2}, 0.6);
    return plot;
  }
  if (p.fixed_y) ymin = p.fixed_y->lo, ymax = p.fixed_y->hi;
  xmin = std::min(xmin, 0.0);
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1, ymin -= 1;
  auto to_px = [&](double x, double y) {
    y = std::clamp(y, ymin, ymax);
    return cv::Point(plot.x + static_cast<int>((x - xmin) / (xmax - xmin) * (w - 1) + 0.5),
                     plot.y + h - 1 - static_cast<int>((y - ymin) / (ymax - ymin) * (h - 1) + 0.5));
  };
  for (int i = 0; i <= 4; ++i) {  // ticks and grid lines
    const double fy = ymin + (ymax - ymin) * i / 4, fx = xmin + (xmax - xmin) * i / 4;
    const int py = plot.y + h - 1 - (h - 1) * i / 4, px = plot.x + (w - 1) * i / 4;
    if (i > 0 && i < 4) cv::line(canvas, {plot.x + 1, py}, {plot.x + w - 2, py}, kGrey, 1);
    put_text(canvas, fmt::format("{:.3g}", fy), {p.x0 + 26, py + 4}, 0.4);
    put_text(canvas, fmt::format("{:.0f}", fx), {px - 10, plot.y + h + 18}, 0.4);
  }
  for (const auto& [s, colour] : p.series) {
    for (size_t i = 1; i < s->size(); ++i)
      cv::line(canvas, to_px((*s)[i - 1].first, (*s)[i - 1].second), to_px((*s)[i].first, (*s)[i].second), colour, 2,
               cv::LINE_8);
    for (const auto& [x, y] : *s) {
      if (s->size() < 60) cv::circle(canvas, to_px(x, y), 3, colour, cv::FILLED, cv::LINE_8);
      layout.samples.emplace_back(to_px(x, y), colour);
    }
  }
  if (!p.names.empty()) {  // legend at the right end of the plot, in the middle band
    int y = plot.y + h / 2 - 30;
    for (size_t i = 0; i < p.names.size() && i < p.series.size(); ++i, y += 20) {
      const int x = plot.x + w - 150;
      cv::rectangle(canvas, cv::Rect(x - 4, y - 13, 150, 20), kWhite, cv::FILLED);
      cv::line(canvas, {x, y - 4}, {x + 22, y - 4}, p.series[i].second, 3);
      put_text(canvas, p.names[i], {x + 28, y}, 0.45);
    }
  }
  return plot;
}

}  // namespace

cv::Mat render_training_curves(const CurveSet& c, CurvesLayout* out) {
  CurvesLayout layout;
  cv::Mat canvas(kPanelH, 2 * kPanelW, CV_8UC3, kWhite);
  Panel loss{0, "training loss", "training step", "loss (seg CE + weighted exist BCE)", {{&c.loss, kLossColour}}, {}, {}};
  layout.loss_plot = draw_panel(canvas, loss, layout);
  Panel metrics{kPanelW, "validation (TuSimple metric)", "training step", "rate (0..1)", {}, {}, Axis{0.0, 1.0}};
  const std::pair<const Series*, std::pair<cv::Scalar, const char*>> entries[] = {
      {&c.accuracy, {kAccuracyColour, "accuracy"}}, {&c.fp, {kFpColour, "FP rate"}}, {&c.fn, {kFnColour, "FN rate"}}};
  for (const auto& [s, style] : entries)
    if (!s->empty()) metrics.series.emplace_back(s, style.first), metrics.names.push_back(style.second);
  layout.metric_plot = draw_panel(canvas, metrics, layout);
  if (out) *out = std::move(layout);
  return canvas;
}

void plot_training_curves(const std::filesystem::path& png, const CurveSet& curves) {
  data::write_png(png, render_training_curves(curves));
}

CurveSet read_curves(const std::filesystem::path& metrics) {
  constexpr auto train = MetricsRecord::kTrain, val = MetricsRecord::kVal;
  return {read_series(metrics, train, "loss"), read_series(metrics, val, "accuracy"), read_series(metrics, val, "fp"),
          read_series(metrics, val, "fn")};
}

}  // namespace lane::train
