// lanectl delete [job] NAME... | --all: stop and remove jobs.
#include "cli/context.h"
#include "common/error.h"
#include "common/names.h"

namespace lane::cli {

namespace {

struct DeleteOptions {
  std::vector<std::string> words;
  std::string project;
  bool all = false;
};

void run_delete(const DeleteOptions& o, CliContext& ctx) {
  std::vector<std::string> names = o.words;
  if (!names.empty() && (names[0] == "job" || names[0] == "jobs")) names.erase(names.begin());
  if (o.all && !names.empty()) throw UsageError("give job names or --all, not both");
  if (!o.all && names.empty()) throw UsageError("delete needs job names (lanectl delete job NAME...) or --all");
  for (const auto& n : names) require_dns1123_label(n, "job name");
  std::string project = ctx.project(o.project);
  auto& jobs = ctx.jobs();
  if (o.all) {
    for (const auto& n : jobs.delete_all_jobs(project)) ctx.out << "Job " << n << " deleted successfully.\n";
    return;
  }
  bool missing = false;
  for (const auto& n : names) {
    if (jobs.delete_job(n, project)) {
      ctx.out << "Job " << n << " deleted successfully.\n";
    } else {
      ctx.err << "Job " << n << " does not exist in project " << project
              << ". If the job exists in a different project, use -p <project-name>.\n";
      missing = true;
    }
  }
  if (missing) throw Error("some jobs were not found", ExitCode::kFailure);
}

}  // namespace

void add_delete_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<DeleteOptions>();
  auto* cmd = app.add_subcommand("delete", "Delete jobs (their processes are stopped)");
  cmd->footer("Examples:\n"
             "  lanectl delete job train-1\n"
             "  lanectl delete train-1 train-2 -p lane-detection\n"
             "  lanectl delete --all                    # every job of the project");
  cmd->add_option("args", o->words, "[job] NAME...");
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_flag("-A,--all", o->all, "Delete every job of the project");
  cmd->callback([o, &ctx] { run_delete(*o, ctx); });
}

}  // namespace lane::cli
