#pragma once
// Every verb of lanectl, one file each (verb_<name>.cpp). main.cpp registers them in this order.
#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace lane::cli {

void add_submit_command(CLI::App& app, CliContext& ctx);
void add_submit_mpi_command(CLI::App& app, CliContext& ctx);
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
// `config project P` and its deprecated spelling `project set P` (verb_config.cpp).
void set_default_project(CliContext& ctx, const std::string& project);
// The user name recorded on submitted jobs: $USER, else the passwd entry, else the uid.
std::string job_user_name();

// Splits what CLI11 should not see: the words after the first `--` (into ctx.after_dash), the
// global flags --context and --kubeconfig (anywhere before `--`, as kubectl takes them; into
// ctx.kube_context / ctx.kubeconfig) and, for submit verbs, the two spellings of --command.
// Returns the argv for CLI11. Throws UsageError for --context or --kubeconfig without a value.
std::vector<std::string> split_command_line(const std::vector<std::string>& argv, CliContext& ctx);

}  // namespace lane::cli
