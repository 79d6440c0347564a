#pragma once
// The scnn-train verbs. Each sub-area registers its own verb; main() only wires them up.
#include <CLI/CLI.hpp>

namespace lane::train {

void add_synth_command(CLI::App& app);     // data/   synthetic TuSimple generator
void add_inspect_command(CLI::App& app);   // data/   load a set, print statistics, overlay PNGs
void add_download_command(CLI::App& app);  // download/ fetch + extract + preprocess TuSimple
void add_eval_command(CLI::App& app);      // eval/   official TuSimple metric
void add_train_command(CLI::App& app);     // trainer/
void add_predict_command(CLI::App& app);   // trainer/
void add_export_command(CLI::App& app);    // trainer/  TorchScript export

}  // namespace lane::train
