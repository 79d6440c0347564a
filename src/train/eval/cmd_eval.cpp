// scnn-train eval --pred PRED.json --gt GT.json: the official TuSimple metric, printed in the
// benchmark's own JSON shape so that results compare 1:1 with published numbers. --per-frame
// also prints every frame's score, worst first, with the name of its predict overlay. Either way
// the scores are also written beside --pred as evaluation.json (frame_table.h).
#include <iostream>
#include <string>

#include "train/commands/verbs.h"
#include "train/eval/frame_table.h"
#include "train/eval/tusimple_metric.h"

namespace lane::train {

void run_eval_verb(const EvalOptions& options) {
  const auto sorted = eval::worst_first(eval::evaluate_frames_files(options.pred, options.gt));
  const auto aggregate = eval::evaluate_files(options.pred, options.gt);
  if (options.per_frame) std::cout << eval::format_frame_table(sorted, options.top);
  std::cout << aggregate.to_official_json().dump() << "\n";
  try {  // for the dashboard's evaluation view; the printed result stands without it
    eval::write_evaluation(options.pred, sorted, aggregate);
  } catch (const std::exception& e) {
    std::cerr << "warning: the per-frame table was not written: " << e.what() << "\n";
  }
}

}  // namespace lane::train
