// lanectl completion bash|zsh|fish: prints a completion script generated from the command tree
// (completion_script.h). Usage: `source <(lanectl completion bash)`.
#include "cli/completion_script.h"
#include "cli/context.h"
#include "cli/verbs.h"

namespace lane::cli {

void add_completion_command(CLI::App& app, CliContext& ctx) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "Print a shell completion script: bash, zsh or fish");
  cmd->add_option("SHELL", *shell, "bash | zsh | fish")->required();
  const CLI::App* root = &app;
  cmd->callback([shell, root, &ctx] { ctx.out << completion_script(*root, *shell); });
}

}  // namespace lane::cli
