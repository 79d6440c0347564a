#include "submit/kube/settings.h"

#include <cstdlib>

namespace lane::submit::kube {

KubeSettings settings_from_env() {
  KubeSettings s;
  auto take = [](const char* name, std::string& into) {
    if (const char* v = std::getenv(name)) into = v;
  };
  take("LANECTL_NAMESPACE_PREFIX", s.namespace_prefix);
  take("LANECTL_QUEUE_LABEL", s.queue_label);
  take("LANECTL_SCHEDULER_NAME", s.scheduler_name);
  take("LANECTL_PARENT_QUEUE", s.parent_queue);
  take("LANECTL_PVC_ACCESS_MODE", s.pvc_access_mode);
  take("LANECTL_SNAPSHOT_CLASS", s.snapshot_class);
  take("LANECTL_DELETE_PROPAGATION", s.delete_propagation);
  return s;
}

}  // namespace lane::submit::kube
