#include "submit/local/state/scheduling_pass.h"

#include <signal.h>

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "common/clock.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/state/job_table.h"

namespace lane::submit::local {
using nlohmann::json;

namespace {

std::string workload_id(const std::string& project, const std::string& name) {
  return project + "/" + name;
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
  record_supervisor(db, row.id, attempt, sup.pid, sup.start_time);
}

}  // namespace

sched::Workload workload_from_row(const JobRow& row) {
  sched::Workload w;
  w.id = workload_id(row.project, row.name);
  w.project = row.project;
  w.type = job_type_from_string(row.type);
  w.gpu_per_pod = row.gpu;
  w.pods = is_distributed(w.type) ? row.pods : 1;
  w.queue_order = row.id;
  w.running = row.status == JobStatus::kRunning;
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
    preempt_job(db, row.id, p.reason);
    add_event(db, row.id, "job/" + row.name, "Warning", "Preempted", p.reason);
    if (row.sup_pid > 0) effects.terminate.emplace_back(row.sup_pid, row.sup_start);
    row.preemptions += 1;
    row.attempt += 1;
  }
  for (const auto& s : decision.start) {
    auto it = rows.find(s.id);
    if (it == rows.end()) continue;
    JobRow& row = it->second;
    const int attempt = start_job(db, row.id, s.placement, now_unix_ms());
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
    set_pending_reason(db, it->second.id, reason);
  }
  return effects;
}

bool any_lost_supervisor(Database& db) {
  auto st = db.prepare("SELECT sup_pid, sup_start FROM jobs WHERE " + status_in({JobStatus::kRunning}));
  while (st.step())
    if (!process_alive(static_cast<pid_t>(st.integer(0)), st.integer(1))) return true;
  return false;
}

bool fail_jobs_with_lost_supervisors(Database& db) {
  bool changed = false;
  for (const auto& row : load_job_rows(db, std::nullopt, false, true)) {
    if (row.status != JobStatus::kRunning || process_alive(row.sup_pid, row.sup_start)) continue;
    // The job's own processes may have outlived the supervisor: stop them, they hold GPUs.
    if (row.child_pgid > 0 && process_alive(row.child_pgid, row.child_start)) kill(-row.child_pgid, SIGKILL);
    std::string reason = fmt::format(
        "supervisor process {} is gone (killed, e.g. with SIGKILL, or the machine restarted); "
        "the job's processes were stopped", row.sup_pid);
    fail_lost_supervisor(db, row.id, reason, now_unix_ms());
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
