#pragma once
// What the roles of the Kubernetes backend share: the API client, the settings, the default
// project, and how a project maps onto its namespace (labelled namespace + KAI queue).
#include <iosfwd>
#include <memory>
#include <string>

#include "kube/kube_client.h"
#include "submit/kube/settings.h"

namespace lane::submit::kube {

// o[key] as a string; empty when absent or not a string.
std::string text(const nlohmann::json& o, const char* key);

struct KubeContext {
  std::shared_ptr<lane::kube::KubeClient> client;
  KubeSettings settings;
  // The project volumes()/snapshots() work in; empty = the kubeconfig context's namespace (or
  // the pod's namespace in-cluster).
  std::string default_project;
  // Where waits and warnings are reported (the CLI's error stream); nullptr = nowhere.
  std::ostream* progress = nullptr;

  std::string ns_of(const std::string& project) const;
  // True when the project's namespace exists and carries the project label.
  bool project_exists(const std::string& name) const;
  // Throws UsageError naming how to create or find the project.
  void require_project(const std::string& project) const;
  // One line on `progress`, when there is one.
  void note(const std::string& line) const;
};

}  // namespace lane::submit::kube
