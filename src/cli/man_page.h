#pragma once
// The man page lanectl.1 (roff, man(7) macros) generated from the CLI11 command tree: every
// listed command with its description, arguments, options and --help footer (examples), so
// that it never drifts from what lanectl accepts. Hidden commands and options are left out.
#include <string>

#include <CLI/CLI.hpp>

namespace lane::cli {

std::string man_page(const CLI::App& root);

}  // namespace lane::cli
