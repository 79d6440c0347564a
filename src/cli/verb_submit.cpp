// lanectl submit (v1), training submit and workspace submit (v2): a single-process job.
#include "cli/context.h"
#include "cli/submit_options.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

std::vector<std::string> examples(Dialect dialect, SubmitKind kind) {
  if (dialect == Dialect::kV1)
    return {"lanectl submit download-tusimple-data -i muneer7589/download-tusimple:1.0 --pvc :100Gi:/mnt --host-network",
            "lanectl submit nb -i jupyter/scipy-notebook --interactive -g 0.5 --port 8888 -s portforward",
            "lanectl submit probe -i busybox --cpu 500m --memory 1Gi --dry-run -o yaml --command -- sleep 60"};
  if (kind == SubmitKind::kWorkspace)
    return {"lanectl workspace submit nb -i jupyter/scipy-notebook --gpu-portion-request 0.5 "
            "--port container=8888,service-type=ClusterIP",
            "lanectl workspace submit dev -i busybox --existing-pvc claimname=data,path=/data -c -- sleep infinity"};
  return {"lanectl training submit download-tusimple-data -i muneer7589/download-tusimple:1.0 "
          "--new-pvc size=100Gi,path=/mnt --host-network",
          "lanectl training submit train -i muneer7589/dist-lane-detection:3.1 --gpu-devices-request 1 "
          "--existing-pvc claimname=pvc-download-tusimple-data-0,path=/mnt -e BATCH_SIZE=8",
          "lanectl training submit probe -i busybox --cpu-core-request 0.5 --dry-run -c -- sleep 60"};
}

}  // namespace

void add_submit_verb(CLI::App& parent, const std::string& name, Dialect dialect, SubmitKind kind, CliContext& ctx) {
  auto opts = std::make_shared<SubmitOptions>();
  opts->dialect = dialect;
  opts->interactive = kind == SubmitKind::kWorkspace;
  const char* what = dialect == Dialect::kV1          ? "Submit a training or interactive job"
                     : kind == SubmitKind::kWorkspace ? "Submit an interactive workload (= submit --interactive)"
                                                      : "Submit a training workload (= submit)";
  auto* cmd = parent.add_subcommand(name, what);
  add_submit_flags(cmd, *opts, examples(dialect, kind));
  if (dialect == Dialect::kV1)
    cmd->add_option_function<std::string>("--workers", [](const std::string&) {
      throw UsageError("unknown flag '--workers' for `lanectl submit`; did you mean `lanectl submit-mpi --processes`? "
                       "(--workers is Run:AI v2's spelling, taken by `lanectl training mpi submit`)");
    })->group("");
  cmd->callback([opts, &ctx] { run_submit(*opts, ctx, submit::JobType::kTrain); });
}

void add_submit_command(CLI::App& app, CliContext& ctx) {
  add_submit_verb(app, "submit", Dialect::kV1, SubmitKind::kTraining, ctx);
}

}  // namespace lane::cli
