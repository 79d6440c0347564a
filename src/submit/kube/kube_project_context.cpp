// The default project in the kubeconfig, as runai keeps it: `config project X` sets the
// namespace of the current context to runai-X (so plain kubectl commands land in the project's
// namespace), and a context whose namespace is runai-X selects project X when lanectl's own
// config names none.
#include "submit/kube/kube_projects.h"

#include "kube/kubeconfig.h"

namespace lane::submit::kube {

std::string KubeProjects::use_project(const std::string& name) {
  const auto& connection = ctx_.client->connection();
  const std::string ns = ctx_.ns_of(name);
  if (connection.config_file.empty())  // in a pod: the service account's namespace is fixed
    return "No kubeconfig (in-cluster service account): the namespace stays " + connection.ns;
  lane::kube::set_context_namespace(connection, ns);
  return "Namespace of kubeconfig context " + connection.context + " set to " + ns + " (" +
         connection.config_file.string() + ")";
}

std::string KubeProjects::configured_project() {
  const std::string& ns = ctx_.client->connection().ns;
  const std::string& prefix = ctx_.settings.namespace_prefix;
  return ns.rfind(prefix, 0) == 0 ? ns.substr(prefix.size()) : "";
}

}  // namespace lane::submit::kube
