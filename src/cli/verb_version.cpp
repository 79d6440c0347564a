// lanectl version: the CMake project version and the git commit known when the build was
// configured ("unknown" without .git and without -DLANE_GIT_REV). No network.
#include <fmt/format.h>

#include "cli/context.h"
#include "cli/verbs.h"
#include "lane/version.h"

namespace lane::cli {

void add_version_command(CLI::App& app, CliContext& ctx) {
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("version", "Print lanectl's version and git commit");
  cmd->add_option("-o,--output", *output, "json | yaml");
  cmd->callback([output, &ctx] {
    OutputFormat format = parse_output_format(*output);
    if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
      print_document(ctx.out, {{"version", kVersion}, {"gitCommit", kGitRevision}}, format);
      return;
    }
    ctx.out << fmt::format("Version:    {}\nGit commit: {}\n", kVersion, kGitRevision);
  });
}

}  // namespace lane::cli
