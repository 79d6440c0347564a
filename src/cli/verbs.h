#pragma once
// Every verb of lanectl, one file each (verb_<name>.cpp). run_cli.cpp registers them in this order.
#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "cli/submit_options.h"

namespace lane::cli {

void add_submit_command(CLI::App& app, CliContext& ctx);
void add_submit_mpi_command(CLI::App& app, CliContext& ctx);
void add_submit_dist_command(CLI::App& app, CliContext& ctx);  // submit-dist pytorch (verb_submit_dist.cpp)
// The PyTorch submit subcommand `name` under `parent` (submit-dist pytorch; v2: training pytorch submit).
CLI::App* add_pytorch_submit_command(CLI::App& parent, CliContext& ctx, const std::string& name,
                                     Dialect dialect = Dialect::kV1);
// The same verbs under another parent and name, in either dialect: `training submit`, `workspace
// submit` (interactive), `training mpi submit` (--workers) are these with Dialect::kV2.
enum class SubmitKind { kTraining, kWorkspace };
void add_submit_verb(CLI::App& parent, const std::string& name, Dialect dialect, SubmitKind kind, CliContext& ctx);
void add_mpi_submit_verb(CLI::App& parent, const std::string& name, Dialect dialect, CliContext& ctx);
// The Run:AI v2 command tree (verb_v2.cpp): `training ...`, `workspace submit`, `workload ...`,
// `pvc list`, `node list`, `nodepool list`; each command one row of its table, either the v1 words
// it runs or its own verb. All are registered (--help, completion); route_v2_command rewrites the
// words of those that run a v1 verb before parsing.
void add_v2_commands(CLI::App& app, CliContext& ctx);
// `argv` (the program first) with a v2 command's words replaced by the v1 words it runs
// (`training list` → `list jobs`, `mpi submit` → `training mpi submit`); `submit`: whether the
// command is a submit verb (v1 or v2), whose --command split_command_line takes.
struct RoutedCommand {
  std::vector<std::string> argv;
  bool submit = false;
  bool v2 = false;  // a v2 submit verb: -c is its --command
};
RoutedCommand route_v2_command(const std::vector<std::string>& argv);
void add_list_command(CLI::App& app, CliContext& ctx);
void add_describe_command(CLI::App& app, CliContext& ctx);
void add_logs_command(CLI::App& app, CliContext& ctx);
void add_delete_command(CLI::App& app, CliContext& ctx);
void add_exec_command(CLI::App& app, CliContext& ctx);
void add_bash_command(CLI::App& app, CliContext& ctx);
void add_config_command(CLI::App& app, CliContext& ctx);
void add_project_command(CLI::App& app, CliContext& ctx);
void add_cluster_command(CLI::App& app, CliContext& ctx);
// Storage verbs (owned by the storage engineers): snapshots, restore, lineage, volumes.
void add_snapshot_command(CLI::App& app, CliContext& ctx);
void add_restore_command(CLI::App& app, CliContext& ctx);
void add_lineage_command(CLI::App& app, CliContext& ctx);
void add_volume_command(CLI::App& app, CliContext& ctx);
// Verbs of the Run:AI v1 CLI beyond the job basics (reference §1.1).
void add_attach_command(CLI::App& app, CliContext& ctx);
void add_suspend_commands(CLI::App& app, CliContext& ctx);  // suspend and resume (verb_suspend.cpp)
void add_top_command(CLI::App& app, CliContext& ctx);
void add_wait_command(CLI::App& app, CliContext& ctx);  // kubectl habits: wait, cp
void add_cp_command(CLI::App& app, CliContext& ctx);
void add_whoami_command(CLI::App& app, CliContext& ctx);
void add_version_command(CLI::App& app, CliContext& ctx);
// The web UI over the same roles (verb_dashboard.cpp; the server is lane_dashboard).
void add_dashboard_command(CLI::App& app, CliContext& ctx);
// Its script is generated, when run, from every subcommand registered.
void add_completion_command(CLI::App& app, CliContext& ctx);

// Printers shared by two spellings of one listing: `project list` / `list projects`
// (verb_project.cpp) and `cluster nodes` / `list nodes` (verb_cluster.cpp).
// `runai_header`: runai's column names (`list projects`: PROJECT, DESERVED GPUs, ...).
void print_projects(CliContext& ctx, const std::string& output, bool runai_header = false);
void print_nodes(CliContext& ctx, const std::string& output);
// `config project P` and `project set P` (Run:AI v2's spelling) (verb_config.cpp).
void set_default_project(CliContext& ctx, const std::string& project);
// The user name recorded on submitted jobs: $USER, else the passwd entry, else the uid.
std::string job_user_name();

// Splits what CLI11 should not see: the words after the first `--` (into ctx.after_dash), the
// global flags --context and --kubeconfig (anywhere before `--`, as kubectl takes them; into
// ctx.kube_context / ctx.kubeconfig) and, for submit verbs, the two spellings of --command (and -c
// on v2 submit verbs). Returns the argv for CLI11, a v2 command routed (route_v2_command). Throws UsageError for --context or --kubeconfig without a value.
std::vector<std::string> split_command_line(const std::vector<std::string>& argv, CliContext& ctx);

}  // namespace lane::cli
