#pragma once
// The Projects role: what `lanectl project ...` and `lanectl config project` ask of a backend.
#include <string>
#include <optional>
#include <vector>

#include "common/error.h"

namespace lane::submit {

struct ProjectSpec {
  std::string name;
  double gpu_quota = 0;        // deserved GPUs
  bool over_quota = true;      // may use idle GPUs beyond the quota (preemptible when it does)
  bool allow_host_network = false;  // local backend: its jobs may ask --host-network
};

// One row of `lanectl project list`.
struct ProjectStatus {
  ProjectSpec spec;
  double gpus_allocated = 0;
  double gpus_requested = 0;   // running + pending
  double fair_share = 0;
  bool fair_share_known = true;  // false: the backend does not compute it (Kubernetes: KAI does, in the cluster)
  int running_jobs = 0;
  int pending_jobs = 0;
  std::vector<std::string> explanation;  // the scheduler's reasons, one fact per line
};

class Projects {
 public:
  virtual ~Projects() = default;

  virtual void create_project(const ProjectSpec& spec) = 0;
  virtual std::vector<ProjectStatus> list_projects() = 0;
  virtual bool project_exists(const std::string& name) = 0;
  // Throws Error when the project still has jobs.
  virtual void delete_project(const std::string& name) = 0;
  virtual void set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) = 0;
  // `project set-network`: whether the project's jobs may use the host's network
  // (--host-network). A local-backend setting; elsewhere the cluster's policy decides.
  virtual void set_project_host_network(const std::string& name, bool allow) {
    (void)name;
    (void)allow;
    throw UsageError("--allow-host-network is a setting of the local backend; on Kubernetes the cluster's "
                     "policy (e.g. Pod Security admission) decides whether pods may use hostNetwork");
  }
  // `config project NAME`: records NAME where the backend keeps a default of its own (Kubernetes:
  // the namespace runai-NAME of the current kubeconfig context, as runai does). Returns a line
  // saying what changed, or "" when the backend keeps nothing (local).
  virtual std::string use_project(const std::string& name) = 0;
  // The project the backend's own configuration selects when `config project` set none
  // (Kubernetes: a context namespace runai-X selects X); "" when none.
  virtual std::string configured_project() = 0;
};

}  // namespace lane::submit
