#pragma once
// The scnn-train command tree, declared once for its two programs: the front (`scnn-train`,
// front.cpp: no libtorch) answers --help and argument errors and hands a valid command to the
// trainer (`scnn-train-core`, main.cpp), which parses the same tree and runs the verb.
#include <functional>

#include <CLI/CLI.hpp>

#include "train/commands/verb_options.h"
#include "train/config/train_config.h"

namespace lane::train {

// What each verb does once its arguments are parsed and checked. A verb left empty is not offered
// (download where the build has no lane_train_download).
struct Verbs {
  std::function<void(const TrainConfig&)> train;  // the resolved settings (train_settings.h)
  std::function<void(const PredictOptions&)> predict;
  std::function<void(const ExportOptions&)> export_model;
  std::function<void(const EvalOptions&)> eval;
  std::function<void(const data::SynthOptions&)> synth;
  std::function<void(const InspectOptions&)> inspect;
  std::function<void(const data::DownloadOptions&)> download;
};

// Adds the verbs that are set to app: their flags, help and checks.
void add_verbs(CLI::App& app, const Verbs& verbs);

// The whole program: parses argv against every verb (one help style), runs the chosen one and
// returns the exit code (usage errors 2, lane::Error its code, other failures 1).
int run_scnn_train(int argc, char** argv, const Verbs& verbs);

// The verbs' work in scnn-train-core, each defined by its sub-area (cmd_*.cpp); train and
// predict are run_training and run_predict.
void run_synth_verb(const data::SynthOptions& options);        // data/   synthetic TuSimple generator
void run_inspect_verb(const InspectOptions& options);          // data/   statistics and overlay PNGs
void run_download_verb(const data::DownloadOptions& options);  // download/ fetch + extract + preprocess
void run_eval_verb(const EvalOptions& options);                // eval/   official TuSimple metric
void run_export_verb(const ExportOptions& options);            // trainer/  TorchScript export

}  // namespace lane::train
