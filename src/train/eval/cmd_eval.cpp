// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "Evaluate predictions with the official TuSimple metric");
  cmd->callback([] { throw Error("'scnn-train eval' is not implemented yet"); });
}
}  // namespace lane::train
