// lanectl attach JOB: wait for the job to run, print its output as it arrives until it ends,
// and exit with its exit code. Kubernetes: pods/attach to the chief pod (-i sends stdin, -t asks
// for a terminal); local: the job's output log is followed (a local job's stdin is /dev/null).
#include "cli/context.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

void add_attach_command(CLI::App& app, CliContext& ctx) {
  struct Options {
    std::string name, project, pod;
    int wait = 300;
    bool stdin_ = false, tty = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("attach", "Follow a job's output until it ends; exit with its exit code");
  cmd->footer("Examples:\n"
             "  lanectl attach train-1                 # follow its output; exit with its exit code\n"
             "  lanectl attach shell-1 -i -t            # an interactive job: type into it\n"
             "  lanectl attach train-1 --wait 600       # wait up to 600 s for it to start");
  cmd->add_option("NAME", o->name, "Job name")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("--pod", o->pod, "Pod (default: the chief pod)");
  cmd->add_option("--wait", o->wait, "Seconds to wait for a pending job to start (default 300)");
  cmd->add_flag("-i,--stdin", o->stdin_, "Send stdin to the job (Kubernetes)");
  cmd->add_flag("-t,--tty", o->tty, "Allocate a terminal (Kubernetes)");
  cmd->callback([o, &ctx] {
    if (o->wait < 0) throw UsageError("--wait " + std::to_string(o->wait) + ": use a number of seconds >= 0");
    submit::AttachOptions opts;
    opts.pod = o->pod;
    opts.wait_seconds = o->wait;
    opts.stdin = o->stdin_;
    opts.tty = o->tty;
    int code = ctx.jobs().attach(o->name, ctx.project(o->project), opts, ctx.out, ctx.err);
    ctx.out.flush();
    throw CommandExit(code);
  });
}

}  // namespace lane::cli
