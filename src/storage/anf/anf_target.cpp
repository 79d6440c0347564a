#include "storage/anf/anf_target.h"

#include "common/error.h"
#include "kube/kubeconfig.h"

namespace lane::storage::anf {

OpenedTarget open_anf_target(const AnfTarget& t, std::ostream* progress) {
  if (t.pvc.empty() == t.volume_id.empty())
    throw UsageError("give exactly one of --pvc NAME (resolved through its PV) or --volume-id ARM_ID");
  AnfOptions options = load_anf_options(t.config_file);
  if (t.timeout_s) {
    if (*t.timeout_s <= 0) throw UsageError("--timeout must be a positive number of seconds");
    options.operation_timeout_s = *t.timeout_s;
  }
  if (!t.home.empty()) options.lineage_dir = t.home / "anf-lineage";
  auto arm = std::make_unique<ArmClient>(options, progress);
  ResolvedVolume resolved;
  if (!t.volume_id.empty()) {
    resolved.ref = parse_volume_id(t.volume_id);
    resolved.method = "volume-id";
  } else {
    kube::KubeClient kube(kube::load_default_connection(kube::chosen_kubeconfig(t.kube_context, t.kubeconfig)));
    const std::string ns = t.ns.empty() ? kube.default_namespace() : t.ns;
    resolved = resolve_pvc(kube, *arm, ns, t.pvc);
    // After a service-level change the PV still names the old pool.
    resolved.ref = locate_moved_volume(*arm, resolved.ref, t.home.empty() ? "" : t.home / "anf-volume-moves.json");
  }
  const std::string label = resolved.pvc.empty() ? resolved.ref.volume : resolved.pvc;
  OpenedTarget out;
  out.volume = resolved;
  out.store = std::make_unique<AnfSnapshotStore>(std::move(arm), resolved.ref, label);
  return out;
}

}  // namespace lane::storage::anf
