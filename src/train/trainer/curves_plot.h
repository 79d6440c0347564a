#pragma once
// training_curves.png: two panels drawn with OpenCV. Left: training loss against the training
// step. Right: the validation metrics (TuSimple accuracy, FP rate, FN rate) against the step on
// a fixed 0..1 axis, with a legend. Both panels have titles, round tick labels (1, 2 or 5 times a
// power of ten, as the dashboard's charts) and axis labels (the y label rotated along the axis),
// in the dashboard's colours. No libtorch.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace lane::train {

using Series = std::vector<std::pair<double, double>>;  // (step, value)

struct CurveSet {
  Series loss, accuracy, fp, fn;
};

// Colours (BGR) of the series: the ones the dashboard's job page gives scnn-train's records (chart.js's COLORS in
// the order of its charts: loss #2f6fec; accuracy #0c8599, FP #f08c00, FN #5c7cfa).
inline const cv::Scalar kLossColour{236, 111, 47}, kAccuracyColour{153, 133, 12}, kFpColour{0, 140, 240},
    kFnColour{250, 124, 92};

// An axis's ticks: about n round values (1, 2 or 5 times a power of ten apart), the first at or
// below lo, the last at or above hi; the axis runs from the first to the last.
struct Ticks {
  double lo, hi, step;
  std::vector<double> values;
};
Ticks nice_ticks(double lo, double hi, int n);

// Where things were drawn, for tests and callers that annotate the picture.
struct CurvesLayout {
  cv::Rect loss_plot, metric_plot;                   // plot areas (inside the axes)
  std::vector<cv::Rect> axis_labels;                 // x and y label boxes of both panels
  std::vector<std::string> axis_label_texts;
  std::vector<std::pair<cv::Point, cv::Scalar>> samples;  // pixel of every data point and its colour
  std::vector<std::vector<double>> x_ticks, y_ticks;      // per panel with data, the tick values
};

// Draws the curves; an empty series is left out, an empty panel says "no data".
cv::Mat render_training_curves(const CurveSet& curves, CurvesLayout* layout = nullptr);

// Renders and writes the PNG.
void plot_training_curves(const std::filesystem::path& png, const CurveSet& curves);

// The curves of a metrics.jsonl (train loss; val accuracy, fp, fn).
CurveSet read_curves(const std::filesystem::path& metrics_jsonl);

}  // namespace lane::train
