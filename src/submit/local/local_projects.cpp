#include "submit/local/local_projects.h"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/names.h"
#include "submit/core/validate.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/job_view.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {

namespace {

std::string host_network_key(const std::string& project) { return "allow_host_network:" + project; }

void store_host_network(Database& db, const std::string& project, bool allow) {
  if (allow)
    db.prepare("INSERT INTO meta(key, value) VALUES(?1, '1') ON CONFLICT(key) DO UPDATE SET value = '1'")
        .bind(1, host_network_key(project)).run();
  else
    db.prepare("DELETE FROM meta WHERE key = ?1").bind(1, host_network_key(project)).run();
}

}  // namespace

bool project_allows_host_network(Database& db, const std::string& project) {
  auto st = db.prepare("SELECT value FROM meta WHERE key = ?1");
  st.bind(1, host_network_key(project));
  return st.step() && st.text(0) == "1";
}

void LocalProjects::create_project(const ProjectSpec& spec) {
  validate_project_name(spec.name, "project name");
  validate_gpu_quota(spec.gpu_quota);
  {
    WriteTransaction tx(st_.db);
    auto st = st_.db.prepare("SELECT 1 FROM projects WHERE name = ?1");
    st.bind(1, spec.name);
    if (st.step()) throw Error("project '" + spec.name + "' already exists; change it with `lanectl project set-quota`");
    st_.db.prepare("INSERT INTO projects(name, gpu_quota, over_quota, created_ms) VALUES(?1,?2,?3,?4)")
        .bind(1, spec.name).bind(2, spec.gpu_quota).bind(3, static_cast<int64_t>(spec.over_quota))
        .bind(4, now_unix_ms()).run();
    store_host_network(st_.db, spec.name, spec.allow_host_network);
    tx.commit();
  }
  st_.reschedule();
}

std::vector<ProjectStatus> LocalProjects::list_projects() {
  ReadTransaction tx(st_.db);
  auto specs = load_projects(st_.db);
  sched::ClusterState state = build_cluster_state(st_.db);
  sched::Decision decision = sched::schedule(state);
  std::map<std::string, sched::ProjectReport> reports;
  for (const auto& r : decision.projects) reports[r.name] = r;
  std::vector<ProjectStatus> out;
  for (const auto& spec : specs) {
    ProjectStatus s;
    s.spec = spec;
    s.spec.allow_host_network = project_allows_host_network(st_.db, spec.name);
    if (auto it = reports.find(spec.name); it != reports.end()) {
      s.gpus_allocated = it->second.allocated;
      s.gpus_requested = it->second.requested;
      s.fair_share = it->second.fair_share;
      s.explanation = it->second.explanation;
    }
    out.push_back(s);
  }
  // Job counts come from the stored state (what is running now), not from the what-if decision.
  auto st = st_.db.prepare("SELECT project, status, COUNT(*) FROM jobs WHERE " +
                            status_in({JobStatus::kRunning, JobStatus::kPending}) + " GROUP BY project, status");
  while (st.step()) {
    const bool running = job_status_from_string(st.text(1)) == JobStatus::kRunning;
    for (auto& s : out)
      if (s.spec.name == st.text(0)) (running ? s.running_jobs : s.pending_jobs) = static_cast<int>(st.integer(2));
  }
  double allocated_now = 0;
  for (auto& s : out) {
    allocated_now = 0;
    for (const auto& row : load_job_rows(st_.db, s.spec.name, false, true))
      if (row.status == JobStatus::kRunning) allocated_now += job_info_from_row(row).gpus_allocated;
    s.gpus_allocated = allocated_now;
  }
  return out;
}

bool LocalProjects::project_exists(const std::string& name) { return find_project(st_.db, name).has_value(); }

void LocalProjects::delete_project(const std::string& name) {
  require_dns1123_label(name, "project name");
  WriteTransaction tx(st_.db);
  if (name == "default") throw UsageError("the 'default' project always exists and cannot be deleted");
  if (!find_project(st_.db, name)) throw Error("project '" + name + "' does not exist");
  auto st = st_.db.prepare("SELECT COUNT(*) FROM jobs WHERE project = ?1");
  st.bind(1, name);
  st.step();
  if (st.integer(0) > 0)
    throw Error(fmt::format("project '{}' still has {} job(s); delete them first with `lanectl delete --all -p {}`",
                            name, st.integer(0), name));
  // Its volumes hold data: deleting the project would hide them (and hand them to a project of
  // the same name later), so they go first, by the user's hand.
  std::vector<std::string> volumes;
  auto vs = st_.db.prepare("SELECT name FROM volumes ORDER BY name");
  while (vs.step()) volumes.push_back(vs.text(0));
  std::vector<std::string> owned;
  for (const auto& v : volumes)
    if (st_.volumes.owner(v) == name) owned.push_back(v);
  if (!owned.empty())
    throw Error(fmt::format("project '{}' still has {} volume(s) ({}); delete them first with `lanectl volume delete "
                            "NAME -p {}` (their data goes with them), or keep the project",
                            name, owned.size(), fmt::join(owned, ", "), name));
  st_.db.prepare("DELETE FROM projects WHERE name = ?1").bind(1, name).run();
  store_host_network(st_.db, name, false);
  tx.commit();
}

void LocalProjects::set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) {
  require_dns1123_label(name, "project name");
  validate_gpu_quota(gpu_quota);
  {
    WriteTransaction tx(st_.db);
    auto existing = find_project(st_.db, name);
    if (!existing) throw UsageError("project '" + name + "' does not exist; create it with `lanectl project create " + name + "`");
    st_.db.prepare("INSERT INTO projects(name, gpu_quota, over_quota, created_ms) VALUES(?1,?2,?3,?4) "
                "ON CONFLICT(name) DO UPDATE SET gpu_quota = excluded.gpu_quota, over_quota = excluded.over_quota")
        .bind(1, name).bind(2, gpu_quota).bind(3, static_cast<int64_t>(over_quota.value_or(existing->over_quota)))
        .bind(4, now_unix_ms()).run();
    tx.commit();
  }
  st_.reschedule();
}

void LocalProjects::set_project_host_network(const std::string& name, bool allow) {
  require_dns1123_label(name, "project name");
  WriteTransaction tx(st_.db);
  if (!find_project(st_.db, name))
    throw UsageError("project '" + name + "' does not exist; create it with `lanectl project create " + name + "`");
  store_host_network(st_.db, name, allow);
  tx.commit();
}

}  // namespace lane::submit::local
