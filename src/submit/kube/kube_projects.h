#pragma once
// The Projects role on Kubernetes: a project is a namespace labelled with it plus a KAI queue
// holding its GPU quota.
#include "submit/core/projects.h"
#include "submit/kube/kube_context.h"
#include "submit/kube/kube_jobs.h"

namespace lane::submit::kube {

class KubeProjects : public Projects {
 public:
  // `jobs`: for the job counts of `project list` and the emptiness check of `project delete`.
  KubeProjects(const KubeContext& context, KubeJobs& jobs) : ctx_(context), jobs_(jobs) {}

  void create_project(const ProjectSpec& spec) override;
  std::vector<ProjectStatus> list_projects() override;
  bool project_exists(const std::string& name) override;
  void delete_project(const std::string& name) override;
  void set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) override;
  // Sets the namespace runai-NAME on the current kubeconfig context, in the file that defines it.
  std::string use_project(const std::string& name) override;
  // The project of the context's namespace (runai-X -> X), "" for any other namespace.
  std::string configured_project() override;

 private:
  const KubeContext& ctx_;
  KubeJobs& jobs_;
};

}  // namespace lane::submit::kube
