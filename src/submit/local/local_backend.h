#pragma once
// The embedded local backend: jobs run on this machine under detached supervisors, state in
// SQLite under $LANECTL_HOME, GPUs shared by the fair-share scheduler (submit/scheduler).
// Its roles: local_jobs.h, local_projects.h, local_cluster.h, local_storage.h over one
// LocalState. See docs/local-backend.md.
#include <filesystem>

#include "submit/core/backend.h"
#include "submit/local/local_cluster.h"
#include "submit/local/local_jobs.h"
#include "submit/local/local_projects.h"
#include "submit/local/state/local_state.h"
#include "submit/local/local_storage.h"

namespace lane::submit::local {

class LocalBackend : public Backend {
 public:
  // Opens (creating when missing) the state under `home` and fails the jobs whose supervisor
  // is gone.
  explicit LocalBackend(const std::filesystem::path& home);
  ~LocalBackend() override;

  std::string kind() const override { return "local"; }
  LocalJobs& jobs() override { return jobs_; }
  LocalProjects& projects() override { return projects_; }
  LocalCluster& cluster() override { return cluster_; }
  LocalStorage& storage() override { return storage_; }
  LocalJobs& job_files() override { return jobs_; }

 private:
  LocalState state_;
  LocalJobs jobs_;
  LocalProjects projects_;
  LocalCluster cluster_;
  LocalStorage storage_;
};

}  // namespace lane::submit::local
