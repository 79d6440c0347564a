// scnn-train eval --pred PRED.json --gt GT.json: the official TuSimple metric, printed in the
// benchmark's own JSON shape so that results compare 1:1 with published numbers.
#include <iostream>
#include <memory>
#include <string>

#include "common/error.h"
#include "train/commands.h"
#include "train/eval/tusimple_metric.h"

namespace lane::train {

void add_eval_command(CLI::App& app) {
  struct Args {
    std::string pred, gt;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("eval", "Evaluate predictions with the official TuSimple metric (lane.py)");
  cmd->add_option("--pred", args->pred, "Prediction JSON lines: raw_file, lanes, run_time (ms) per frame")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--gt", args->gt, "Ground-truth label JSON lines (e.g. test_label.json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->callback([args] {
    const eval::Metrics m = eval::evaluate_files(args->pred, args->gt);
    std::cout << m.to_official_json().dump() << "\n";
  });
}

}  // namespace lane::train
