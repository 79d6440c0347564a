#pragma once
// The embedded local backend: jobs run on this machine under detached supervisors, state in
// SQLite under $LANECTL_HOME, GPUs shared by the fair-share scheduler (submit/scheduler).
// See docs/local-backend.md.
#include <filesystem>
#include <memory>

#include "submit/core/backend.h"
#include "submit/local/local_volumes.h"
#include "submit/local/scheduling_pass.h"
#include "submit/local/state_store.h"

namespace lane::storage::local {
class LocalSnapshotStore;
}

namespace lane::submit::local {

class LocalBackend : public Backend {
 public:
  explicit LocalBackend(const std::filesystem::path& home);
  ~LocalBackend() override;

  std::string kind() const override { return "local"; }
  nlohmann::json render(const JobSpec& spec) override;
  JobInfo submit(const JobSpec& spec) override;
  std::string next_job_name(const std::string& project, const std::string& prefix) override;
  std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) override;
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override;
  void stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                   std::ostream& out) override;
  bool delete_job(const std::string& name, const std::string& project) override;
  std::vector<std::string> delete_all_jobs(const std::string& project) override;
  int exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
           bool tty, const std::string& pod) override;

  void create_project(const ProjectSpec& spec) override;
  std::vector<ProjectStatus> list_projects() override;
  bool project_exists(const std::string& name) override;
  void delete_project(const std::string& name) override;
  void set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) override;

  void set_nodes(const std::vector<NodeSpec>& nodes) override;
  std::vector<NodeStatus> list_nodes() override;

  storage::Volumes& volumes() override { return volumes_; }
  LocalVolumes& local_volumes() { return volumes_; }
  storage::SnapshotStore& snapshots() override;

 private:
  void validate(const JobSpec& spec);
  // Runs a pass in its own write transaction (after changes made elsewhere).
  void reschedule();
  void check_supervisors();

  Paths paths_;
  Database db_;
  LocalVolumes volumes_;
  std::unique_ptr<storage::local::LocalSnapshotStore> snapshots_;
};

}  // namespace lane::submit::local
