#include "submit/kube/kube_backend.h"

#include <ostream>

#include "kube/kubeconfig.h"

namespace lane::submit::kube {

KubeBackend::KubeBackend(std::shared_ptr<lane::kube::KubeClient> client, KubeSettings settings,
                         std::string default_project, std::ostream* progress)
    : ctx_{std::move(client), std::move(settings), std::move(default_project), progress},
      jobs_(ctx_),
      projects_(ctx_, jobs_),
      cluster_(ctx_),
      storage_(ctx_, progress) {
  // The API server's warnings (deprecations, dropped fields) go where kubectl shows them: stderr.
  if (progress) {
    ctx_.client->set_warning_sink([progress](const std::string& w) { *progress << "Warning: " << w << std::endl; });
  }
}

KubeBackend::~KubeBackend() = default;

std::unique_ptr<Backend> open_kube_backend(const std::string& default_project, std::ostream* progress,
                                           const KubeconfigChoice& choice) {
  auto client = std::make_shared<lane::kube::KubeClient>(
      lane::kube::load_default_connection(lane::kube::chosen_kubeconfig(choice.context, choice.file)));
  return std::make_unique<KubeBackend>(client, settings_from_env(), default_project, progress);
}

}  // namespace lane::submit::kube
