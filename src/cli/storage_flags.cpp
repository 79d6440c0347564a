#include "cli/storage_flags.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/core/workload.h"
#include "submit/factory/factory.h"

namespace lane::cli {

std::string provider_text(std::string_view text) {
  const auto& p = submit::volume_provider_traits();
  return fmt::format(fmt::runtime(text), fmt::arg("backend", p.name), fmt::arg("label", p.label),
                     fmt::arg("title", p.title), fmt::arg("new_volume_flag", p.new_volume_flag));
}

void add_provider_options(CLI::App* cmd, submit::StorageSelection& s) {
  const auto& p = submit::volume_provider_traits();
  cmd->add_option("-n,--namespace", s.ns, provider_text("{label}: Kubernetes namespace of the PVC (overrides -p)"));
  cmd->add_option("--volume-id", s.volume_id, provider_text("{label}: ") + p.volume_id_help);
  const auto& config = p.config_option;
  cmd->add_option(config.flag, s.config,
                  provider_text("{label}: ") + config.help + (config.env.empty() ? "" : "; default $" + config.env));
  cmd->add_option("--timeout", s.timeout_s,
                  provider_text("{label}: seconds to wait for a long-running operation (default 600)"));
}

void add_backend_options(CLI::App* cmd, submit::StorageSelection& s) {
  cmd->add_option("--backend", s.backend,
                  provider_text("local | kubernetes | {backend} (default: the configured backend; {backend} = native "
                                "{label} snapshots)"));
  add_provider_options(cmd, s);
}

std::unique_ptr<storage::ProviderVolume> open_provider_volume(const submit::StorageSelection& s,
                                                              const std::string& pvc, const std::string& project,
                                                              CliContext& ctx) {
  storage::ProviderVolumeTarget t;
  t.pvc = pvc;
  if (!pvc.empty()) require_dns1123_label(pvc, "--pvc");
  t.ns = !s.ns.empty() ? s.ns : submit::project_namespace(ctx.project(project));
  t.kube_context = ctx.kube_context;
  t.kubeconfig = ctx.kubeconfig;
  t.volume_id = s.volume_id;
  if (!s.config.empty()) t.config_file = s.config;
  if (s.timeout_s != 0) t.timeout_s = s.timeout_s;
  t.home = submit::lanectl_home();
  return submit::open_volume_provider()->open(t, &ctx.err);
}

storage::SnapshotStore& SelectedStorage::open(const std::string& pvc, const std::string& project, CliContext& ctx) {
  // The project's snapshots and volumes (-p, else the configured project). Nothing else is read
  // first: in a pod, the service account's Role may allow only the snapshots and claims.
  if (!traits_.one_volume) return ctx.storage().snapshots_of(ctx.project(project));
  provider_volume_ = open_provider_volume(selection_, pvc, project, ctx);
  return provider_volume_->snapshots();
}

}  // namespace lane::cli
