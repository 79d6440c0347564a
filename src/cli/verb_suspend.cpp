// lanectl suspend JOB / resume JOB (one file: the two halves of one switch). Kubernetes: the
// workload's suspend field (Job spec.suspend, MPIJob spec.runPolicy.suspend); local: the job's
// processes are stopped as preemption stops them and it stays Suspended until resumed.
#include "cli/context.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

struct SuspendOptions {
  std::vector<std::string> names;
  std::string project;
};

void add_switch(CLI::App& app, CliContext& ctx, bool suspend) {
  auto o = std::make_shared<SuspendOptions>();
  auto* cmd = app.add_subcommand(suspend ? "suspend" : "resume",
                                 suspend ? "Suspend jobs: stop their pods and keep them until resumed"
                                         : "Resume suspended jobs: they wait for the scheduler again");
  cmd->footer(suspend ? "Examples:\n"
                       "  lanectl suspend train-1                 # stop its pods, keep the job\n"
                       "  lanectl suspend train-1 train-2 -p lane-detection"
                     : "Examples:\n"
                       "  lanectl resume train-1                  # back to the scheduler's queue\n"
                       "  lanectl resume train-1 train-2 -p lane-detection");
  cmd->add_option("NAME", o->names, "Job names")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->callback([o, &ctx, suspend] {
    std::string project = ctx.project(o->project);
    for (const auto& name : o->names) {
      auto result = suspend ? ctx.jobs().suspend_job(name, project) : ctx.jobs().resume_job(name, project);
      if (result == submit::SwitchResult::kNoJob)
        throw Error("job '" + name + "' does not exist in project '" + project +
                    "'. If the job exists in a different project, use -p <project-name>.");
      ctx.out << submit::switch_message(name, suspend ? "suspend" : "resume", result) << "\n";
    }
  });
}

}  // namespace

void add_suspend_commands(CLI::App& app, CliContext& ctx) {
  add_switch(app, ctx, true);
  add_switch(app, ctx, false);
}

}  // namespace lane::cli
