// lanectl submit-dist pytorch: a distributed PyTorch job (Run:AI v1 `runai submit-dist pytorch`),
// one master and --workers workers; a Kubeflow PyTorchJob on Kubernetes, torchrun's ranks locally.
#include "cli/context.h"
#include "cli/submit_options.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

std::vector<std::string> pytorch_examples(Dialect dialect) {
  if (dialect == Dialect::kV1)
    return {"lanectl submit-dist pytorch ddp -i pytorch/pytorch --workers 2 --gpu 1 --command -- torchrun train.py",
            "lanectl submit-dist pytorch hello -i busybox --workers 1 --command -- sh -c 'echo $RANK of $WORLD_SIZE'"};
  return {"lanectl training pytorch submit ddp -i pytorch/pytorch --workers 2 --gpu-devices-request 1 -c -- torchrun "
          "train.py",
          "lanectl training pytorch submit hello -i busybox --workers 1 -c -- sh -c 'echo $RANK of $WORLD_SIZE'"};
}

}  // namespace

CLI::App* add_pytorch_submit_command(CLI::App& parent, CliContext& ctx, const std::string& name, Dialect dialect) {
  auto opts = std::make_shared<SubmitOptions>();
  opts->dialect = dialect;
  opts->spec.processes = 1;
  auto* cmd = parent.add_subcommand(name, "Submit a distributed PyTorch job: one master and --workers workers");
  add_submit_flags(cmd, *opts, pytorch_examples(dialect));
  hide_single_pod_flags(cmd);
  if (dialect == Dialect::kV2) {
    cmd->get_option("--gpu-devices-request")->description("Whole GPUs per process (master and each worker)");
    cmd->get_option("--gpu-portion-request")->group("");  // processes take whole GPUs
  }
  const std::string group = "Distributed";
  cmd->add_option("--workers", opts->spec.processes,
                  "Worker processes besides the master (default 1); each of them and the master gets --gpu GPUs")
      ->group(group);
  cmd->add_option("--clean-pod-policy", opts->spec.clean_pod_policy,
                  "Pods to delete when the job ends: Running (default) | All | None")
      ->group(group);
  cmd->get_option("--gpu")->description("GPUs per process (master and each worker): a whole number");
  cmd->callback([opts, &ctx] {
    if (opts->interactive)
      throw UsageError("--interactive is not available for submit-dist pytorch; PyTorch jobs are training jobs");
    run_submit(*opts, ctx, submit::JobType::kPyTorch);
  });
  return cmd;
}

void add_submit_dist_command(CLI::App& app, CliContext& ctx) {
  auto* dist = app.add_subcommand("submit-dist", "Submit a distributed training job of a framework (pytorch)");
  dist->require_subcommand(1);
  add_pytorch_submit_command(*dist, ctx, "pytorch");
}

}  // namespace lane::cli
