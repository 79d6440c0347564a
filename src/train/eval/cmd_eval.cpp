// scnn-train eval --pred PRED.json --gt GT.json: the official TuSimple metric, printed in the
// benchmark's own JSON shape so that results compare 1:1 with published numbers. --per-frame
// also prints every frame's score, worst first, with the name of its predict overlay. Either way
// the scores are also written beside --pred as evaluation.json (frame_table.h).
#include <iostream>
#include <memory>
#include <string>

#include "common/error.h"
#include "train/commands.h"
#include "train/eval/frame_table.h"
#include "train/eval/tusimple_metric.h"

namespace lane::train {

void add_eval_command(CLI::App& app) {
  struct Args {
    std::string pred, gt;
    bool per_frame = false;
    size_t top = 0;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("eval", "Evaluate predictions with the official TuSimple metric (lane.py)");
  cmd->add_option("--pred", args->pred, "Prediction JSON lines: raw_file, lanes, run_time (ms) per frame")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--gt", args->gt, "Ground-truth label JSON lines (e.g. test_label.json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--per-frame", args->per_frame,
                "Also print a table of every frame's accuracy, FP and FN, worst first, with its overlay file name");
  cmd->add_option("--top", args->top, "With --per-frame: print only the N worst frames [default: all]");
  cmd->callback([args] {
    if (args->top > 0 && !args->per_frame) throw UsageError("--top needs --per-frame (e.g. --per-frame --top 10)");
    const auto sorted = eval::worst_first(eval::evaluate_frames_files(args->pred, args->gt));
    const auto aggregate = eval::evaluate_files(args->pred, args->gt);
    if (args->per_frame) std::cout << eval::format_frame_table(sorted, args->top);
    std::cout << aggregate.to_official_json().dump() << "\n";
    try {  // for the dashboard's evaluation view; the printed result stands without it
      eval::write_evaluation(args->pred, sorted, aggregate);
    } catch (const std::exception& e) {
      std::cerr << "warning: the per-frame table was not written: " << e.what() << "\n";
    }
  });
}

}  // namespace lane::train
