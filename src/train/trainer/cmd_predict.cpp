// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_predict_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("predict", "Run a checkpoint on frames: TuSimple json-lines and overlays");
  cmd->callback([] { throw Error("'scnn-train predict' is not implemented yet"); });
}
}  // namespace lane::train
