#include "submit/local/state/scheduling_pass.h"

#include <signal.h>

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "common/clock.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/process_identity.h"

namespace lane::submit::local {
using nlohmann::json;

namespace {

std::string workload_id(const std::string& project, const std::string& name) {
  return project + "/" + name;
}

json placement_to_json(const std::vector<sched::PodPlacement>& placement) {
  json out = json::array();
  for (const auto& p : placement)
    out.push_back({{"node", p.node}, {"gpus", p.gpu_indices}, {"share", p.share_per_gpu}});
  return out;
}

std::string describe_placement(const std::vector<sched::PodPlacement>& placement) {
  std::string text;
  for (size_t i = 0; i < placement.size(); ++i) {
    const auto& p = placement[i];
    std::string gpus;
    for (int g : p.gpu_indices) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    if (gpus.empty()) {
      text += fmt::format("{}{} (no GPUs)", i ? "; " : "", p.node);
      continue;
    }
    text += fmt::format("{}{} GPUs [{}]{}", i ? "; " : "", p.node, gpus,
                        p.share_per_gpu > 0 && p.share_per_gpu < 1 ? fmt::format(" x{:g}", p.share_per_gpu) : "");
  }
  return text;
}

void spawn_supervisor(Database& db, const Paths& paths, const JobRow& row, int attempt) {
  std::filesystem::create_directories(paths.job_dir(row.id));
  SpawnedProcess sup = spawn_detached(
      {self_executable(), "__supervise", paths.home.string(), std::to_string(row.id), std::to_string(attempt)},
      (paths.job_dir(row.id) / "supervisor.log").string());
  db.prepare("UPDATE jobs SET sup_pid = ?1, sup_start = ?2, child_pgid = 0, child_start = 0 WHERE id = ?3")
      .bind(1, static_cast<int64_t>(sup.pid)).bind(2, static_cast<int64_t>(sup.start_time)).bind(3, row.id).run();
}

}  // namespace

sched::Workload workload_from_row(const JobRow& row) {
  sched::Workload w;
  w.id = workload_id(row.project, row.name);
  w.project = row.project;
  w.type = job_type_from_string(row.type);
  w.gpu_per_pod = row.gpu;
  w.pods = row.type == "Mpi" ? row.pods : 1;
  w.queue_order = row.id;
  w.running = row.status == "Running";
  w.preemptible = row.preemptible;
  if (w.running)
    for (const auto& p : row.placement)
      w.placement.push_back({p.value("node", ""), p["gpus"].get<std::vector<int>>(), p.value("share", 1.0)});
  return w;
}

sched::ClusterState build_cluster_state(Database& db) {
  sched::ClusterState state;
  for (const auto& n : effective_nodes(db)) state.nodes.push_back({n.name, n.gpus});
  for (const auto& p : load_projects(db)) state.projects.push_back({p.name, p.gpu_quota, p.over_quota});
  for (const auto& row : load_job_rows(db, std::nullopt, false, true))
    state.workloads.push_back(workload_from_row(row));
  return state;
}

PassEffects run_scheduling_pass(Database& db, const Paths& paths) {
  PassEffects effects;
  sched::ClusterState state = build_cluster_state(db);
  if (state.workloads.empty()) return effects;
  sched::Decision decision = sched::schedule(state);

  std::map<std::string, JobRow> rows;
  for (auto& row : load_job_rows(db, std::nullopt, false, true))
    rows.emplace(workload_id(row.project, row.name), std::move(row));

  // Preempt first so that the GPUs are free in the state the starts are recorded against.
  for (const auto& p : decision.preempt) {
    auto it = rows.find(p.id);
    if (it == rows.end()) continue;
    JobRow& row = it->second;
    release_job(db, row.id, "Pending", p.reason, /*new_attempt=*/true);
    db.prepare("UPDATE jobs SET preemptions = preemptions + 1 WHERE id = ?1").bind(1, row.id).run();
    add_event(db, row.id, "job/" + row.name, "Warning", "Preempted", p.reason);
    if (row.sup_pid > 0) effects.terminate.emplace_back(row.sup_pid, row.sup_start);
    row.preemptions += 1;
    row.attempt += 1;
  }
  for (const auto& s : decision.start) {
    auto it = rows.find(s.id);
    if (it == rows.end()) continue;
    JobRow& row = it->second;
    int attempt = row.attempt + 1;
    int64_t now = now_unix_ms();
    double alloc = 0;
    std::string nodes;
    for (const auto& p : s.placement) {
      alloc += p.share_per_gpu * static_cast<double>(p.gpu_indices.size());
      if (("," + nodes + ",").find("," + p.node + ",") == std::string::npos) nodes += (nodes.empty() ? "" : ",") + p.node;
    }
    db.prepare("UPDATE jobs SET status = 'Running', reason = '', placement = ?1, attempt = ?2, "
               "started_ms = CASE WHEN started_ms = 0 THEN ?3 ELSE started_ms END, alloc = ?5, nodes = ?6 "
               "WHERE id = ?4")
        .bind(1, placement_to_json(s.placement).dump()).bind(2, static_cast<int64_t>(attempt))
        .bind(3, now).bind(4, row.id).bind(5, alloc).bind(6, nodes).run();
    add_event(db, row.id, "job/" + row.name, "Normal", "Scheduled",
              "Successfully assigned to " + describe_placement(s.placement));
    if (row.preemptions > 0)
      add_event(db, row.id, "job/" + row.name, "Normal", "Resumed",
                fmt::format("resumed after {} preemption(s)", row.preemptions));
    spawn_supervisor(db, paths, row, attempt);
  }
  for (const auto& [id, reason] : decision.pending_reason) {
    auto it = rows.find(id);
    if (it == rows.end() || it->second.reason == reason) continue;
    // A preempted job keeps the preemption as its reason until it resumes (describe's events
    // keep the full history either way).
    if (it->second.reason.rfind("preempted", 0) == 0) continue;
    db.prepare("UPDATE jobs SET reason = ?1 WHERE id = ?2 AND status = 'Pending'")
        .bind(1, reason).bind(2, it->second.id).run();
  }
  return effects;
}

bool any_lost_supervisor(Database& db) {
  auto st = db.prepare("SELECT sup_pid, sup_start FROM jobs WHERE status = 'Running'");
  while (st.step())
    if (!process_alive(static_cast<pid_t>(st.integer(0)), st.integer(1))) return true;
  return false;
}

bool fail_jobs_with_lost_supervisors(Database& db) {
  bool changed = false;
  for (const auto& row : load_job_rows(db, std::nullopt, false, true)) {
    if (row.status != "Running" || process_alive(row.sup_pid, row.sup_start)) continue;
    // The job's own processes may have outlived the supervisor: stop them, they hold GPUs.
    if (row.child_pgid > 0 && process_alive(row.child_pgid, row.child_start)) kill(-row.child_pgid, SIGKILL);
    std::string reason = fmt::format(
        "supervisor process {} is gone (killed, e.g. with SIGKILL, or the machine restarted); "
        "the job's processes were stopped", row.sup_pid);
    db.prepare("UPDATE jobs SET status = 'Failed', reason = ?1, finished_ms = ?2, sup_pid = 0 WHERE id = ?3")
        .bind(1, reason).bind(2, now_unix_ms()).bind(3, row.id).run();
    add_event(db, row.id, "job/" + row.name, "Warning", "SupervisorLost", reason);
    changed = true;
  }
  return changed;
}

void terminate_supervisors(const PassEffects& effects) {
  for (const auto& [pid, start] : effects.terminate)
    if (process_alive(pid, start)) kill(pid, SIGTERM);
}

}  // namespace lane::submit::local
