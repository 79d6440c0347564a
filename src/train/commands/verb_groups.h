#pragma once
// The verbs by sub-area, in the order --help lists them (run_scnn_train adds both groups).
#include <CLI/CLI.hpp>

#include "train/commands/verbs.h"

namespace lane::train {

void add_training_verbs(CLI::App& app, const Verbs& verbs);  // train, predict, export
void add_data_verbs(CLI::App& app, const Verbs& verbs);      // eval, synth, inspect, download

}  // namespace lane::train
