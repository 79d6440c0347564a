#pragma once
// training_curves.png: two panels drawn with OpenCV. Left: training loss against the training
// step. Right: the validation metrics (TuSimple accuracy, FP rate, FN rate) against the step on
// a fixed 0..1 axis, with a legend. Both panels have titles, tick labels and axis labels (the
// y label rotated along the axis). No libtorch.
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

// Colours (BGR) of the series.
inline const cv::Scalar kLossColour{200, 80, 0}, kAccuracyColour{0, 140, 0}, kFpColour{0, 0, 220},
    kFnColour{0, 140, 255};

// Where things were drawn, for tests and callers that annotate the picture.
struct CurvesLayout {
  cv::Rect loss_plot, metric_plot;                   // plot areas (inside the axes)
  std::vector<cv::Rect> axis_labels;                 // x and y label boxes of both panels
  std::vector<std::string> axis_label_texts;
  std::vector<std::pair<cv::Point, cv::Scalar>> samples;  // pixel of every data point and its colour
};

// Draws the curves; an empty series is left out, an empty panel says "no data".
cv::Mat render_training_curves(const CurveSet& curves, CurvesLayout* layout = nullptr);

// Renders and writes the PNG.
void plot_training_curves(const std::filesystem::path& png, const CurveSet& curves);

// The curves of a metrics.jsonl (train loss; val accuracy, fp, fn).
CurveSet read_curves(const std::filesystem::path& metrics_jsonl);

}  // namespace lane::train
