// lanectl bash JOB: an interactive shell inside a running job (= exec -it JOB /bin/bash).
#include "cli/context.h"

namespace lane::cli {

void run_in_job(const std::string& name, const std::string& project_flag, const std::vector<std::string>& argv,
                bool tty, const std::string& pod, CliContext& ctx);

void add_bash_command(CLI::App& app, CliContext& ctx) {
  struct Options {
    std::string name, project, pod;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("bash", "Open a shell inside a running job");
  cmd->footer("Examples:\n"
             "  lanectl bash train-1\n"
             "  lanectl bash dist-train --pod dist-train-worker-1   # one MPI worker");
  cmd->add_option("NAME", o->name, "Job name")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("--pod", o->pod, "Pod (default: the chief pod)");
  cmd->callback([o, &ctx] { run_in_job(o->name, o->project, {"/bin/bash"}, true, o->pod, ctx); });
}

}  // namespace lane::cli
