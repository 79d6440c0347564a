// lanectl config project NAME | config backend local|kubernetes: persistent defaults in
// $LANECTL_HOME/config.json; on Kubernetes `config project` also sets the kubeconfig context's
// namespace to runai-NAME, as runai does (see docs/cli.md).
#include "cli/context.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "submit/core/validate.h"
#include "submit/factory/factory.h"

namespace lane::cli {

void set_default_project(CliContext& ctx, const std::string& project) {
  submit::validate_project_name(project, "project name");
  if (!ctx.projects().project_exists(project))
    throw UsageError("project '" + project + "' was not found; create it with `lanectl project create " + project +
                     " --gpu-quota N` or see `lanectl project list`");
  std::string note = ctx.projects().use_project(project);  // Kubernetes: the context's namespace
  submit::save_config_value(ctx.config().home, "project", project);
  ctx.out << "Project " << project << " has been set as default project\n";
  if (!note.empty()) ctx.err << note << "\n";
}

void add_config_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("config", "Set the default project or the backend");
  cmd->footer("Examples:\n"
             "  lanectl config project lane-detection   # -p default for every command\n"
             "  lanectl config backend local            # or kubernetes");
  cmd->require_subcommand(1);

  auto project = std::make_shared<std::string>();
  auto* p = cmd->add_subcommand("project", "Set the default project for every command");
  p->add_option("NAME", *project, "Project name")->required();
  p->callback([project, &ctx] { set_default_project(ctx, *project); });

  auto backend = std::make_shared<std::string>();
  auto* b = cmd->add_subcommand("backend", "Choose the backend: local (this machine) or kubernetes");
  b->add_option("KIND", *backend, "local | kubernetes")->required();
  b->callback([backend, &ctx] {
    if (*backend != "local" && *backend != "kubernetes")
      throw UsageError("unknown backend '" + *backend + "'; use local or kubernetes");
    submit::save_config_value(submit::lanectl_home(), "backend", *backend);
    ctx.out << "Backend " << *backend << " has been set as default backend\n";
  });
}

}  // namespace lane::cli
