#include "submit/kube/settings.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "common/error.h"

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
  std::string wait;
  take("LANECTL_DELETION_WAIT_SECONDS", wait);
  if (!wait.empty()) {
    size_t used = 0;
    long seconds = -1;
    try {
      seconds = std::stol(wait, &used);
    } catch (const std::exception&) {
    }
    if (seconds < 0 || used != wait.size()) {
      throw UsageError(fmt::format("LANECTL_DELETION_WAIT_SECONDS='{}' is not a whole number of seconds >= 0; "
                                   "set it like LANECTL_DELETION_WAIT_SECONDS=60 or unset it",
                                   wait));
    }
    s.deletion_wait = std::chrono::seconds(seconds);
  }
  return s;
}

}  // namespace lane::submit::kube
