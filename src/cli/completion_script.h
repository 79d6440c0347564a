#pragma once
// Shell completion scripts generated from the CLI11 command tree (subcommands, their aliases and
// their flags), so that they never drift from what lanectl accepts. Hidden subcommands (empty
// group) are left out, as --help leaves them out.
#include <string>

#include <CLI/CLI.hpp>

namespace lane::cli {

// `shell`: bash | zsh | fish; anything else is a UsageError naming the three.
// bash: defines _lanectl and `complete -F _lanectl <name>`; zsh: the bash script through zsh's
// bashcompinit; fish: `complete -c <name>` lines.
std::string completion_script(const CLI::App& root, const std::string& shell);

}  // namespace lane::cli
