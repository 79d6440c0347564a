#pragma once
// An in-memory Backend for driving lanectl's verbs in-process (run_cli): jobs and projects in
// maps, every call recorded, nothing else (cluster, storage and job files are refused).
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/run_cli.h"
#include "submit/core/backend.h"

namespace lane::test {

class FakeBackend : public submit::Backend, submit::Jobs, submit::Projects {
 public:
  std::map<std::string, submit::JobInfo> jobs_by_key;  // "<project>/<name>"
  std::vector<submit::ProjectStatus> project_list;
  std::vector<std::string> calls;  // "delete p/j", "submit p/j", ...

  void add_job(const std::string& project, const std::string& name, submit::JobStatus status, double gpu) {
    submit::JobInfo info;
    info.spec.name = name;
    info.spec.project = project;
    info.spec.image = "busybox";
    info.spec.gpu = gpu;
    info.status = status;
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    info.created_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - std::chrono::hours(2)).count();
    jobs_by_key[project + "/" + name] = info;
  }

  std::string kind() const override { return "local"; }
  submit::Jobs& jobs() override { return *this; }
  submit::Projects& projects() override { return *this; }
  submit::Cluster& cluster() override { throw std::logic_error("FakeBackend: no cluster"); }
  submit::Storage& storage() override { throw std::logic_error("FakeBackend: no storage"); }
  submit::JobFiles& job_files() override { throw std::logic_error("FakeBackend: no job files"); }

  // Jobs
  nlohmann::json render(const submit::JobSpec& spec) override { return {{"name", spec.name}}; }
  submit::JobInfo submit(const submit::JobSpec& spec) override {
    calls.push_back("submit " + spec.project + "/" + spec.name);
    submit::JobInfo info;
    info.spec = spec;
    return jobs_by_key[spec.project + "/" + spec.name] = info;
  }
  std::string next_job_name(const std::string&, const std::string& prefix) override { return prefix + "-1"; }
  std::vector<submit::JobInfo> list_jobs(const std::optional<std::string>& project) override {
    std::vector<submit::JobInfo> out;
    for (const auto& [key, info] : jobs_by_key)
      if (!project || info.spec.project == *project) out.push_back(info);
    return out;
  }
  std::optional<submit::JobInfo> describe_job(const std::string& name, const std::string& project) override {
    auto it = jobs_by_key.find(project + "/" + name);
    return it == jobs_by_key.end() ? std::nullopt : std::optional<submit::JobInfo>(it->second);
  }
  void stream_logs(const std::string&, const std::string&, const submit::LogOptions&, std::ostream&) override {}
  bool delete_job(const std::string& name, const std::string& project) override {
    calls.push_back("delete " + project + "/" + name);
    return jobs_by_key.erase(project + "/" + name) > 0;
  }
  std::vector<std::string> delete_all_jobs(const std::string& project) override {
    std::vector<std::string> names;
    for (const auto& job : list_jobs(project)) names.push_back(job.spec.name);
    for (const auto& n : names) delete_job(n, project);
    return names;
  }
  int exec(const std::string& name, const std::string& project, const std::vector<std::string>&, bool,
           const std::string&, std::ostream& out, std::ostream&) override {
    out << "exec in " << project << "/" << name << "\n";
    return 7;
  }
  submit::SwitchResult suspend_job(const std::string&, const std::string&) override {
    return submit::SwitchResult::kNoJob;
  }
  submit::SwitchResult resume_job(const std::string&, const std::string&) override {
    return submit::SwitchResult::kNoJob;
  }
  int attach(const std::string&, const std::string&, const submit::AttachOptions&, std::ostream&,
             std::ostream&) override {
    return 3;
  }

  // Projects
  void create_project(const submit::ProjectSpec& spec) override { calls.push_back("create project " + spec.name); }
  std::vector<submit::ProjectStatus> list_projects() override { return project_list; }
  bool project_exists(const std::string& name) override { return name == "default"; }
  void delete_project(const std::string&) override {}
  void set_project_quota(const std::string&, double, std::optional<bool>) override {}
  std::string use_project(const std::string& name) override { return name; }
  std::string configured_project() override { return ""; }
};

// An opener handing out `backend` (owned by the test) with a local-kind configuration.
inline cli::BackendOpener opener_of(FakeBackend& backend) {
  struct Borrowed : submit::Backend {
    explicit Borrowed(FakeBackend& b) : b(b) {}
    std::string kind() const override { return b.kind(); }
    submit::Jobs& jobs() override { return b.jobs(); }
    submit::Projects& projects() override { return b.projects(); }
    submit::Cluster& cluster() override { return b.cluster(); }
    submit::Storage& storage() override { return b.storage(); }
    submit::JobFiles& job_files() override { return b.job_files(); }
    FakeBackend& b;
  };
  return {[] { return submit::BackendConfig{}; },
          [&backend](const submit::BackendConfig&, std::ostream*) { return std::make_unique<Borrowed>(backend); }};
}

struct CliResult {
  int code;
  std::string out, err;
};

// `lanectl ARGS...` run in-process against `backend`, with empty stdin.
inline CliResult run_in_process(FakeBackend& backend, std::vector<std::string> args) {
  args.insert(args.begin(), "lanectl");
  std::istringstream in;
  std::ostringstream out, err;
  const int code = cli::run_cli(args, in, out, err, opener_of(backend));
  return {code, out.str(), err.str()};
}

}  // namespace lane::test
