#include "cli/anf_flags.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/core/workload.h"
#include "submit/factory/factory.h"

namespace lane::cli {

void add_anf_options(CLI::App* cmd, AnfFlags& f) {
  cmd->add_option("-n,--namespace", f.ns, "ANF: Kubernetes namespace of the PVC (overrides -p)");
  cmd->add_option("--volume-id", f.volume_id, "ANF: volume ARM resource id (instead of --pvc)");
  cmd->add_option("--anf-config", f.config, "ANF: credentials file (0600; Trident backend.json keys)");
  cmd->add_option("--timeout", f.timeout_s, "ANF: seconds to wait for a long-running operation (default 600)");
}

void add_backend_options(CLI::App* cmd, AnfFlags& f) {
  cmd->add_option("--backend", f.backend,
                  "local | kubernetes | anf (default: the configured backend; anf = native ANF snapshots)");
  add_anf_options(cmd, f);
}

bool anf_backend_selected(const AnfFlags& f) {
  if (submit::open_volume_provider(f.backend)) return true;
  if (!f.ns.empty() || !f.volume_id.empty() || !f.config.empty() || f.timeout_s != 0)
    throw UsageError("-n, --volume-id, --anf-config and --timeout are for Azure NetApp Files; add --backend anf");
  return false;
}

std::unique_ptr<storage::ProviderVolume> open_anf_volume(const AnfFlags& f, const std::string& pvc,
                                                         const std::string& project, CliContext& ctx) {
  storage::ProviderVolumeTarget t;
  t.pvc = pvc;
  if (!pvc.empty()) require_dns1123_label(pvc, "--pvc");
  t.ns = !f.ns.empty() ? f.ns : submit::project_namespace(ctx.project(project));
  t.kube_context = ctx.kube_context;
  t.kubeconfig = ctx.kubeconfig;
  t.volume_id = f.volume_id;
  if (!f.config.empty()) t.config_file = f.config;
  if (f.timeout_s != 0) t.timeout_s = f.timeout_s;
  t.lineage_dir = submit::lanectl_home() / "anf-lineage";
  return submit::open_volume_provider("anf")->open(t, &ctx.err);
}

SelectedSnapshotStore::SelectedSnapshotStore(const AnfFlags& flags, const std::string& pvc,
                                             const std::string& project, CliContext& ctx)
    : ctx_(ctx), project_(project) {
  if (anf_backend_selected(flags)) anf_ = open_anf_volume(flags, pvc, project, ctx);
}

}  // namespace lane::cli
