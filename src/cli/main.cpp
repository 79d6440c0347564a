// lanectl: submit and manage lane-detection training jobs, Run:AI style.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "lane/version.h"
#include "submit/factory/factory.h"

int main(int argc, char** argv) {
  // Hidden verbs of a backend (the local job supervisor, MPI rank wrapper): not user commands.
  if (int code = lane::submit::run_internal_verb(argc, argv); code >= 0) return code;

  lane::cli::CliContext ctx;
  ctx.argv.assign(argv, argv + argc);
  ctx.argv[0] = "lanectl";

  CLI::App app{"lanectl: run distributed lane-detection training on Kubernetes or on this machine"};
  app.name("lanectl");
  app.set_version_flag("--version", std::string("lanectl ") + lane::kVersion + " (" + lane::kGitRevision + ")");
  app.require_subcommand(1);
  using namespace lane::cli;
  add_submit_command(app, ctx);
  add_submit_mpi_command(app, ctx);
  add_list_command(app, ctx);
  add_describe_command(app, ctx);
  add_logs_command(app, ctx);
  add_delete_command(app, ctx);
  add_exec_command(app, ctx);
  add_bash_command(app, ctx);
  add_config_command(app, ctx);
  add_project_command(app, ctx);
  add_cluster_command(app, ctx);
  add_snapshot_command(app, ctx);
  add_restore_command(app, ctx);
  add_lineage_command(app, ctx);
  add_volume_command(app, ctx);

  try {
    std::vector<std::string> args = split_command_line(ctx.argv, ctx);
    std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);  // CLI11 wants them reversed, no argv[0]
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(lane::ExitCode::kUsage);
  } catch (const lane::Error& e) {
    std::cerr << "lanectl: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "lanectl: error: " << e.what() << "\n";
    return static_cast<int>(lane::ExitCode::kFailure);
  }
  return 0;
}
