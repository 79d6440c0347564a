#include "train/trainer/curves_plot.h"

#include <algorithm>
#include <cmath>
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
// The dashboard's light theme (src/dashboard/assets/style.css): ink, muted text, grid lines, panel.
const cv::Scalar kBlack(48, 35, 29), kMuted(113, 96, 88), kGrey(236, 230, 227), kWhite(255, 255, 255);

struct Axis {
  double lo, hi;
};

// A tick value as text, with as many decimals as the step between ticks needs ("0.2", "250").
std::string tick_label(double v, double step) {
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", std::abs(v) < step * 1e-9 ? 0.0 : v, decimals);
}

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

cv::Rect put_text(cv::Mat& canvas, const std::string& text, cv::Point at, double scale, const cv::Scalar& colour = kBlack) {
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, scale, 1, &baseline);
  cv::putText(canvas, text, at, kFont, scale, colour, 1, cv::LINE_AA);
  return cv::Rect(at.x, at.y - size.height, size.width, size.height + baseline);
}

struct Panel {
  int x0;
  std::string title, xlabel, ylabel;
  std::vector<std::pair<const Series*, cv::Scalar>> series;
  std::vector<std::string> names;  // legend entries (empty: no legend)
  std::optional<Axis> fixed_y;
};

// Grid lines and labels at the round ticks of both axes, which span the plot.
void draw_ticks(cv::Mat& canvas, const cv::Rect& plot, const Ticks& xt, const Ticks& yt, int x0) {
  const int w = plot.width, h = plot.height;
  for (const double v : yt.values) {
    const int py = plot.y + h - 1 - static_cast<int>((v - yt.lo) / (yt.hi - yt.lo) * (h - 1) + 0.5);
    if (py > plot.y + 1 && py < plot.y + h - 2) cv::line(canvas, {plot.x + 1, py}, {plot.x + w - 2, py}, kGrey, 1);
    put_text(canvas, tick_label(v, yt.step), {x0 + 26, py + 4}, 0.4, kMuted);
  }
  for (const double v : xt.values) {
    const int px = plot.x + static_cast<int>((v - xt.lo) / (xt.hi - xt.lo) * (w - 1) + 0.5);
    cv::line(canvas, {px, plot.y + h}, {px, plot.y + h + 4}, kMuted, 1);
    const std::string text = tick_label(v, xt.step);
    put_text(canvas, text, {px - 4 * static_cast<int>(text.size()), plot.y + h + 18}, 0.4, kMuted);
  }
}

cv::Rect draw_panel(cv::Mat& canvas, const Panel& p, CurvesLayout& layout) {
  const int w = kPanelW - kLeft - kRight, h = kPanelH - kTop - kBottom;
  const cv::Rect plot(p.x0 + kLeft, kTop, w, h);
  put_text(canvas, p.title, {plot.x, 25}, 0.6);
  layout.axis_labels.push_back(put_text(canvas, p.xlabel, {plot.x + w / 2 - 40, kPanelH - 12}, 0.5));
  layout.axis_label_texts.push_back(p.xlabel);
  layout.axis_labels.push_back(put_vertical_text(canvas, p.ylabel, p.x0 + 4, plot.y + h / 2));
  layout.axis_label_texts.push_back(p.ylabel);
  cv::rectangle(canvas, plot, kMuted, 1);

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
  const Ticks xt = nice_ticks(std::min(xmin, 0.0), xmax, 6), yt = nice_ticks(ymin, ymax, 5);
  layout.x_ticks.push_back(xt.values);
  layout.y_ticks.push_back(yt.values);
  auto to_px = [&](double x, double y) {
    y = std::clamp(y, yt.lo, yt.hi);
    return cv::Point(plot.x + static_cast<int>((x - xt.lo) / (xt.hi - xt.lo) * (w - 1) + 0.5),
                     plot.y + h - 1 - static_cast<int>((y - yt.lo) / (yt.hi - yt.lo) * (h - 1) + 0.5));
  };
  draw_ticks(canvas, plot, xt, yt, p.x0);
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

Ticks nice_ticks(double lo, double hi, int n) {
  if (!(hi > lo)) {
    const double d = std::abs(lo) > 0 ? std::abs(lo) : 1.0;
    lo -= d / 2, hi += d / 2;
  }
  const double raw = (hi - lo) / std::max(1, n), mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (const double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  Ticks t{std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, step, {}};
  for (int i = 0; t.lo + i * step <= t.hi + step * 1e-9; ++i) t.values.push_back(t.lo + i * step);
  return t;
}

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
