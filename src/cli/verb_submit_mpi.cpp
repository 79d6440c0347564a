// lanectl submit-mpi (aliases mpi, mj): a distributed job, N MPI worker processes.
#include "cli/context.h"
#include "cli/submit_options.h"

namespace lane::cli {

void add_submit_mpi_command(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<SubmitOptions>();
  auto* cmd = app.add_subcommand("submit-mpi", "Submit a distributed (MPI) training job");
  cmd->alias("mpi");
  cmd->alias("mj");
  add_submit_flags(cmd, *opts);
  // --help lists only what works here: --interactive, --preemptible, --completions,
  // --parallelism and --mig stay accepted so that they are refused with their reason (MPI jobs are
  // preemptible training jobs with --processes workers), but are not listed; workers take whole GPUs.
  cmd->get_option("--interactive")->group("");
  for (const char* hidden : {"--preemptible", "--completions", "--parallelism", "--mig"}) cmd->get_option(hidden)->group("");
  cmd->add_option("--clean-pod-policy", opts->spec.clean_pod_policy,
                  "Worker pods to delete when the job ends: Running (default) | All | None");
  cmd->get_option("--gpu")->description("GPUs per worker process: a whole number (each MPI worker needs whole GPUs)");
  cmd->add_option("--processes", opts->spec.processes, "Number of MPI worker processes (each gets --gpu GPUs)");
  cmd->add_option("--slots-per-worker", opts->spec.slots_per_worker, "MPI slots per worker (recorded; Kubernetes backend)");
  cmd->callback([opts, &ctx] { run_submit(*opts, ctx, submit::JobType::kMpi); });
}

}  // namespace lane::cli
