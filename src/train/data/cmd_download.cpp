// Placeholder registration; replaced by the real verb.
#include "common/error.h"
#include "train/commands.h"

namespace lane::train {
void add_download_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("download", "Download, extract and preprocess TuSimple");
  cmd->callback([] { throw Error("'scnn-train download' is not implemented yet"); });
}
}  // namespace lane::train
