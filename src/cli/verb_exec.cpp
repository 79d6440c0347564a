// lanectl exec JOB -- CMD ARGS...: run a command in a running job's environment.
#include "cli/context.h"
#include "common/error.h"

namespace lane::cli {

namespace {

struct ExecOptions {
  std::vector<std::string> words;
  std::string project, pod;
  bool tty = false, stdin_ = false;
};

}  // namespace

// Shared with `bash`: ends lanectl with the command's exit code.
void run_in_job(const std::string& name, const std::string& project_flag, const std::vector<std::string>& argv,
                bool tty, const std::string& pod, CliContext& ctx) {
  int code = ctx.jobs().exec(name, ctx.project(project_flag), argv, tty, pod, ctx.out, ctx.err);
  ctx.out.flush();
  throw CommandExit(code);
}

void add_exec_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<ExecOptions>();
  auto* cmd = app.add_subcommand("exec", "Run a command inside a running job");
  cmd->footer("Examples:\n"
             "  lanectl exec train-1 -- nvidia-smi\n"
             "  lanectl exec train-1 -it -- sh         # a shell (same as `lanectl bash train-1`)\n"
             "  lanectl exec dist-train --pod dist-train-worker-0 -- ls /mnt");
  cmd->add_option("args", o->words, "JOB [CMD ARGS...]; or JOB -- CMD ARGS...");
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("--pod", o->pod, "Pod (default: the chief pod)");
  cmd->add_flag("-t,--tty", o->tty, "Allocate a terminal (the local backend uses the current one)");
  cmd->add_flag("-i,--stdin", o->stdin_, "Pass stdin (always on locally)");
  cmd->callback([o, &ctx] {
    if (o->words.empty()) throw UsageError("exec needs a job name: lanectl exec JOB -- CMD ARGS...");
    std::vector<std::string> argv(o->words.begin() + 1, o->words.end());
    argv.insert(argv.end(), ctx.after_dash.begin(), ctx.after_dash.end());
    if (argv.empty()) throw UsageError("exec needs a command: lanectl exec " + o->words[0] + " -- CMD ARGS...");
    run_in_job(o->words[0], o->project, argv, o->tty, o->pod, ctx);
  });
}

}  // namespace lane::cli
