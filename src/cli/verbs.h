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
// Storage verbs (owned by the storage / ANF engineers): snapshots, restore, lineage, volumes.
void add_snapshot_command(CLI::App& app, CliContext& ctx);
void add_restore_command(CLI::App& app, CliContext& ctx);
void add_lineage_command(CLI::App& app, CliContext& ctx);
void add_volume_command(CLI::App& app, CliContext& ctx);

// Splits what CLI11 should not see: the words after the first `--` (into ctx.after_dash), the
// global flags --context and --kubeconfig (anywhere before `--`, as kubectl takes them; into
// ctx.kube_context / ctx.kubeconfig) and, for submit verbs, the two spellings of --command.
// Returns the argv for CLI11. Throws UsageError for --context or --kubeconfig without a value.
std::vector<std::string> split_command_line(const std::vector<std::string>& argv, CliContext& ctx);

}  // namespace lane::cli
