// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_synth_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("synth", "Generate a synthetic TuSimple data set");
  cmd->callback([] { throw Error("'scnn-train synth' is not implemented yet"); });
}
}  // namespace lane::train
