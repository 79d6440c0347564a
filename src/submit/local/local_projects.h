#pragma once
// The Projects role of the local backend: projects and their GPU quotas in the state
// database; `project list` shows the scheduler's fair shares and reasons.
#include "submit/core/projects.h"
#include "submit/local/state/local_state.h"

namespace lane::submit::local {

// Whether jobs of `project` may use the host's network (`project create|set-network
// --allow-host-network`; kept in the meta table, key "allow_host_network:<project>"). No: each
// job gets its own network namespace with only loopback.
bool project_allows_host_network(Database& db, const std::string& project);

class LocalProjects : public Projects {
 public:
  explicit LocalProjects(LocalState& state) : st_(state) {}

  void create_project(const ProjectSpec& spec) override;
  std::vector<ProjectStatus> list_projects() override;
  bool project_exists(const std::string& name) override;
  void delete_project(const std::string& name) override;
  void set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) override;
  void set_project_host_network(const std::string& name, bool allow) override;
  // The local backend keeps its default project only in config.json: nothing to do, "".
  std::string use_project(const std::string&) override { return ""; }
  std::string configured_project() override { return ""; }

 private:
  LocalState& st_;
};

}  // namespace lane::submit::local
