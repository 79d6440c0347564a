#pragma once
// The Kubernetes backend: its roles (kube_jobs.h, kube_projects.h, kube_cluster.h,
// kube_storage.h) over one API client. See docs/kubernetes.md.
#include <iosfwd>
#include <memory>
#include <string>

#include "submit/core/backend.h"
#include "kube/kube_client.h"
#include "submit/kube/kube_cluster.h"
#include "submit/kube/kube_context.h"
#include "submit/kube/kube_jobs.h"
#include "submit/kube/kube_projects.h"
#include "submit/kube/kube_storage.h"
#include "submit/kube/settings.h"

namespace lane::submit::kube {

class KubeBackend : public Backend {
 public:
  // `default_project`: the project volumes()/snapshots() work in; empty = the kubeconfig
  // context's namespace (or the pod's namespace in-cluster). `progress`: where long storage
  // operations report (the CLI's error stream); nullptr = nowhere.
  KubeBackend(std::shared_ptr<lane::kube::KubeClient> client, KubeSettings settings,
              std::string default_project = {}, std::ostream* progress = nullptr);
  ~KubeBackend() override;

  std::string kind() const override { return "kubernetes"; }
  KubeJobs& jobs() override { return jobs_; }
  KubeProjects& projects() override { return projects_; }
  KubeCluster& cluster() override { return cluster_; }
  KubeStorage& storage() override { return storage_; }
  KubeJobs& job_files() override { return jobs_; }

 private:
  KubeContext ctx_;
  KubeJobs jobs_;
  KubeProjects projects_;
  KubeCluster cluster_;
  KubeStorage storage_;
};

// Which kubeconfig and context to use (lanectl's --kubeconfig and --context); empty: as kubectl
// chooses ($KUBECONFIG, else ~/.kube/config, else in-cluster; the current-context).
struct KubeconfigChoice {
  std::string context;
  std::string file;
};

// Opens the backend from the kubeconfig / in-cluster service account (the factory calls this).
// Throws UsageError when `choice.file` does not exist.
std::unique_ptr<Backend> open_kube_backend(const std::string& default_project, std::ostream* progress,
                                           const KubeconfigChoice& choice = {});

}  // namespace lane::submit::kube
