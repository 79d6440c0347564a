// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_inspect_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Load a TuSimple set, print statistics and write label overlays");
  cmd->callback([] { throw Error("'scnn-train inspect' is not implemented yet"); });
}
}  // namespace lane::train
