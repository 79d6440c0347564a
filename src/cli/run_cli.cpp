#include "cli/run_cli.h"

#include <ostream>
#include <utility>

#include <CLI/CLI.hpp>

#include "cli/parse_errors.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "lane/version.h"

namespace lane::cli {
namespace {

void add_commands(CLI::App& app, CliContext& ctx) {
  app.name("lanectl");
  app.set_version_flag("--version", std::string("lanectl ") + lane::kVersion + " (" + lane::kGitRevision + ")");
  app.require_subcommand(1);
  // Global flags, as kubectl has them: split_command_line takes them from anywhere before `--`
  // (CLI11 never sees them); registered here so that `lanectl --help` lists them.
  app.add_option("--context", ctx.kube_context,
                 "Kubernetes backend: the kubeconfig context to use (default: its current-context)");
  app.add_option("--kubeconfig", ctx.kubeconfig,
                 "Kubernetes backend: the kubeconfig file to use (default: $KUBECONFIG, else ~/.kube/config)");
  add_submit_command(app, ctx);
  add_submit_mpi_command(app, ctx);
  add_submit_dist_command(app, ctx);
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
  add_attach_command(app, ctx);
  add_suspend_commands(app, ctx);
  add_top_command(app, ctx);
  add_wait_command(app, ctx);
  add_cp_command(app, ctx);
  add_whoami_command(app, ctx);
  add_version_command(app, ctx);
  add_dashboard_command(app, ctx);
  add_v2_commands(app, ctx);
  add_completion_command(app, ctx);
}

}  // namespace

int run_cli(const std::vector<std::string>& argv, std::istream& in, std::ostream& out, std::ostream& err,
            BackendOpener opener) {
  CliContext ctx(in, out, err, std::move(opener));
  ctx.argv = argv;
  ctx.argv[0] = "lanectl";
  CLI::App app{"lanectl: run distributed lane-detection training on Kubernetes or on this machine"};
  add_commands(app, ctx);

  std::vector<std::string> args;  // what CLI11 parses, in command-line order, without argv[0]
  try {
    std::vector<std::string> kept = split_command_line(ctx.argv, ctx);
    args.assign(kept.begin() + 1, kept.end());
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 wants them reversed
  } catch (const CommandExit& e) {
    return e.code();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, --version
    err << "lanectl: error: " << parse_error_message(app, e, args) << "\n";
    return static_cast<int>(lane::ExitCode::kUsage);
  } catch (const lane::Error& e) {
    err << "lanectl: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    err << "lanectl: error: " << e.what() << "\n";
    return static_cast<int>(lane::ExitCode::kFailure);
  }
  return 0;
}

}  // namespace lane::cli
