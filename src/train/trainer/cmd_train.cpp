// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train SCNN");
  cmd->callback([] { throw Error("'scnn-train train' is not implemented yet"); });
}
}  // namespace lane::train
