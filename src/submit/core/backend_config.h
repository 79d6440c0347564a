#pragma once
// Which backend lanectl uses and where its settings live (see submit/factory/factory.h for how
// they are read and the backend opened).
#include <filesystem>
#include <string>

namespace lane::submit {

struct BackendConfig {
  std::string kind = "local";          // local | kubernetes
  std::filesystem::path home;          // LANECTL_HOME
  std::string default_project;         // `lanectl config project P`; empty = "default"
  std::string kube_context;            // kubernetes: --context (empty: the kubeconfig's current-context)
  std::string kubeconfig;              // kubernetes: --kubeconfig FILE (empty: $KUBECONFIG, else ~/.kube/config)
};

}  // namespace lane::submit
