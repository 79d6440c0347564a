#pragma once
// The Kubernetes implementation of lanectl's Backend: jobs are batch/v1 Jobs and Kubeflow
// MPIJobs in the project's namespace, scheduled by KAI; projects are namespaces + KAI queues;
// volumes are PVCs and snapshots are CSI VolumeSnapshots (storage/kube).
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "submit/core/backend.h"
#include "kube/kube_client.h"
#include "submit/kube/settings.h"

namespace lane::storage {
class Volumes;
class SnapshotStore;
}  // namespace lane::storage

namespace lane::submit::kube {

class KubeBackend : public Backend {
 public:
  // `default_project`: the project volumes()/snapshots() work in; empty = the kubeconfig
  // context's namespace (or the pod's namespace in-cluster).
  KubeBackend(std::shared_ptr<lane::kube::KubeClient> client, KubeSettings settings,
              std::string default_project = {});
  ~KubeBackend() override;

  std::string kind() const override { return "kubernetes"; }

  nlohmann::json render(const JobSpec& spec) override;
  JobInfo submit(const JobSpec& spec) override;
  std::string next_job_name(const std::string& project, const std::string& prefix) override;
  std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) override;
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override;
  void stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                   std::ostream& out) override;
  bool delete_job(const std::string& name, const std::string& project) override;
  std::vector<std::string> delete_all_jobs(const std::string& project) override;
  int exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv, bool tty,
           const std::string& pod) override;

  void create_project(const ProjectSpec& spec) override;
  std::vector<ProjectStatus> list_projects() override;
  bool project_exists(const std::string& name) override;
  void delete_project(const std::string& name) override;
  void set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) override;

  void set_nodes(const std::vector<NodeSpec>& nodes) override;
  std::vector<NodeStatus> list_nodes() override;

  storage::Volumes& volumes() override;
  storage::SnapshotStore& snapshots() override;
  storage::SnapshotStore& snapshots_of(const std::string& project) override;

  lane::kube::KubeClient& client() { return *client_; }
  const KubeSettings& settings() const { return settings_; }

 private:
  std::string ns_of(const std::string& project) const;
  void require_project(const std::string& project);
  // The workload (Job or MPIJob) named `name` in `ns`, or nullopt.
  std::optional<nlohmann::json> find_workload(const std::string& ns, const std::string& name);
  std::vector<JobInfo> jobs_in(const std::string& ns);  // ns empty = all lanectl namespaces
  std::string chief_pod(const std::string& ns, const nlohmann::json& workload);
  std::string storage_namespace();
  std::unique_ptr<storage::SnapshotStore> make_snapshot_store(const std::string& ns);

  std::shared_ptr<lane::kube::KubeClient> client_;
  KubeSettings settings_;
  std::string default_project_;
  std::unique_ptr<storage::Volumes> volumes_;
  std::unique_ptr<storage::SnapshotStore> snapshots_;
  std::map<std::string, std::unique_ptr<storage::SnapshotStore>> project_snapshots_;  // by namespace
};

// Opens the backend from the kubeconfig / in-cluster service account (the factory calls this).
std::unique_ptr<Backend> open_kube_backend(const std::string& default_project);

}  // namespace lane::submit::kube
