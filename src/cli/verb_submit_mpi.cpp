// lanectl submit-mpi (aliases mpi, mj) and training mpi submit (v2): a distributed job, N MPI
// worker processes.
#include "cli/context.h"
#include "cli/submit_options.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

std::vector<std::string> examples(Dialect dialect) {
  if (dialect == Dialect::kV1)
    return {"lanectl submit-mpi --name dist-lane-detection-training --large-shm --processes=3 --gpu 1 "
            "--pvc pvc-download-tusimple-data-0:/mnt --image muneer7589/dist-lane-detection:3.1 -e BATCH_SIZE=33",
            "lanectl submit-mpi hello -i busybox --processes 2 --command -- hostname"};
  return {"lanectl training mpi submit dist-lane-detection-training --large-shm --workers 3 --gpu-devices-request 1 "
          "--existing-pvc claimname=pvc-download-tusimple-data-0,path=/mnt -i muneer7589/dist-lane-detection:3.1",
          "lanectl training mpi submit hello -i busybox --workers 2 -c -- hostname"};
}

}  // namespace

void add_mpi_submit_verb(CLI::App& parent, const std::string& name, Dialect dialect, CliContext& ctx) {
  auto opts = std::make_shared<SubmitOptions>();
  opts->dialect = dialect;
  auto* cmd = parent.add_subcommand(name, dialect == Dialect::kV1 ? "Submit a distributed (MPI) training job"
                                                                  : "Submit an MPI training workload (= submit-mpi)");
  add_submit_flags(cmd, *opts, examples(dialect));
  // --help lists only what works here: --interactive, --preemptible, --completions,
  // --parallelism and --mig stay accepted so that they are refused with their reason (MPI jobs are
  // preemptible training jobs with --processes workers), but are not listed; workers take whole GPUs.
  hide_single_pod_flags(cmd);
  const std::string group = "Distributed";
  cmd->add_option("--clean-pod-policy", opts->spec.clean_pod_policy,
                  "Worker pods to delete when the job ends: Running (default) | All | None")->group(group);
  cmd->get_option("--gpu")->description("GPUs per worker process: a whole number (each MPI worker needs whole GPUs)");
  auto* processes = cmd->add_option("--processes", opts->spec.processes, "Number of MPI worker processes (each gets --gpu GPUs)");
  if (dialect == Dialect::kV2) {
    processes->group("");
    cmd->add_option("--workers", opts->spec.processes, "Number of MPI workers (each gets the GPUs asked)")
        ->group(group)
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {  // in v2's terms (validate names --processes)
              return text.find_first_not_of("0123456789") == std::string::npos && text.find_first_not_of('0') !=
                                                                                       std::string::npos
                         ? std::string()
                         : "'" + text + "': use 1 or more workers (e.g. --workers 2)";
            },
            ""));
    cmd->get_option("--gpu-devices-request")->description("Whole GPUs per worker (e.g. 1)");
    cmd->get_option("--gpu-portion-request")->group("");  // workers take whole GPUs
  } else {
    processes->group(group);
    cmd->add_option_function<std::string>("--workers", [](const std::string&) {
      throw UsageError("unknown flag '--workers' for `lanectl submit-mpi`; did you mean '--processes'? (--workers is "
                       "Run:AI v2's spelling, taken by `lanectl training mpi submit`)");
    })->group("");
  }
  cmd->add_option("--slots-per-worker", opts->spec.slots_per_worker, "MPI slots per worker (recorded; Kubernetes backend)")
      ->group(group);
  cmd->callback([opts, &ctx] { run_submit(*opts, ctx, submit::JobType::kMpi); });
}

void add_submit_mpi_command(CLI::App& app, CliContext& ctx) {
  add_mpi_submit_verb(app, "submit-mpi", Dialect::kV1, ctx);
  auto* cmd = app.get_subcommand("submit-mpi");
  cmd->alias("mpi");
  cmd->alias("mj");
}

}  // namespace lane::cli
