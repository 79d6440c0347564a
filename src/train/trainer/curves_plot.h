#pragma once
// training_curves.png: training loss and validation accuracy against the step, drawn with
// OpenCV (axes, tick labels, titles). No libtorch.
#include <filesystem>
#include <utility>
#include <vector>

namespace lane::train {

using Series = std::vector<std::pair<double, double>>;  // (step, value)

// Two panels side by side; an empty series draws an empty panel saying "no data".
void plot_training_curves(const std::filesystem::path& png, const Series& loss, const Series& val_accuracy);

}  // namespace lane::train
