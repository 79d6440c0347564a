// lanectl submit: a single-process (Train or Interactive) job.
#include "cli/context.h"
#include "cli/submit_options.h"

namespace lane::cli {

void add_submit_command(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<SubmitOptions>();
  auto* cmd = app.add_subcommand("submit", "Submit a training or interactive job");
  add_submit_flags(cmd, *opts);
  cmd->callback([opts, &ctx] { run_submit(*opts, ctx, submit::JobType::kTrain); });
}

}  // namespace lane::cli
