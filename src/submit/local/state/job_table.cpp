#include "submit/local/state/job_table.h"

#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "submit/core/workload_json.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {
using nlohmann::json;

std::string status_in(const std::vector<JobStatus>& states) {
  std::string list;
  for (JobStatus s : states) list += fmt::format("{}'{}'", list.empty() ? "" : ",", to_string(s));
  return fmt::format("status IN ({})", list);
}

const JobTransitionRule& transition_rule(JobTransition transition) {
  using S = JobStatus;
  static const JobTransitionRule kStart{"start", {S::kPending}, S::kRunning};
  static const JobTransitionRule kPreempt{"preempt", {S::kRunning}, S::kPending};
  static const JobTransitionRule kRunAgain{"run again", {S::kRunning}, S::kPending};
  static const JobTransitionRule kSucceed{"succeed", {S::kRunning}, S::kSucceeded};
  static const JobTransitionRule kFail{"fail", {S::kRunning}, S::kFailed};
  static const JobTransitionRule kLoseSupervisor{"lose its supervisor", {S::kRunning}, S::kFailed};
  static const JobTransitionRule kSuspend{"suspend", {S::kPending, S::kRunning}, S::kSuspended};
  static const JobTransitionRule kResume{"resume", {S::kSuspended}, S::kPending};
  switch (transition) {
    case JobTransition::kStart: return kStart;
    case JobTransition::kPreempt: return kPreempt;
    case JobTransition::kRunAgain: return kRunAgain;
    case JobTransition::kSucceed: return kSucceed;
    case JobTransition::kFail: return kFail;
    case JobTransition::kLoseSupervisor: return kLoseSupervisor;
    case JobTransition::kSuspend: return kSuspend;
    case JobTransition::kResume: return kResume;
  }
  throw Error("unknown job transition");
}

const std::vector<JobTransition>& all_job_transitions() {
  static const std::vector<JobTransition> all{
      JobTransition::kStart,   JobTransition::kPreempt,        JobTransition::kRunAgain, JobTransition::kSucceed,
      JobTransition::kFail,    JobTransition::kLoseSupervisor, JobTransition::kSuspend,  JobTransition::kResume};
  return all;
}

namespace {

// What a change of job `id` requires of its row: one of `from` states, and the caller's attempt.
struct RowGuard {
  std::string action;  // "start", "record the supervisor of", ... (for the refusal)
  std::vector<JobStatus> from;
  std::optional<int> attempt;
};

JobTransitionRefused refusal(Database& db, int64_t id, const RowGuard& guard) {
  auto st = db.prepare("SELECT status, attempt FROM jobs WHERE id = ?1");
  st.bind(1, id);
  if (!st.step())
    return {fmt::format("cannot {} job {}: it no longer exists", guard.action, id), std::nullopt};
  const JobStatus now = job_status_from_string(st.text(0));
  const int attempt = static_cast<int>(st.integer(1));
  std::string allowed;
  for (JobStatus s : guard.from) allowed += fmt::format("{}{}", allowed.empty() ? "" : " or ", to_string(s));
  if (guard.attempt && attempt != *guard.attempt)
    return {fmt::format("cannot {} job {} in attempt {}: it is {} in attempt {}", guard.action, id, *guard.attempt,
                        to_string(now), attempt),
            now};
  return {fmt::format("cannot {} job {}: it is {}, not {}", guard.action, id, to_string(now), allowed), now};
}

// UPDATE jobs SET `set` on job `id` when its row passes `guard`; refuses otherwise. `set` uses
// ?1 (the id) and ?2 (the attempt) and from ?3 on whatever `bind` binds.
void update_guarded(Database& db, int64_t id, const RowGuard& guard, const std::string& set,
                    const std::function<void(Statement&)>& bind = {}) {
  auto st = db.prepare(fmt::format("UPDATE jobs SET {} WHERE id = ?1 AND {} AND (?2 IS NULL OR attempt = ?2)", set,
                                   status_in(guard.from)));
  st.bind(1, id);
  if (guard.attempt) st.bind(2, static_cast<int64_t>(*guard.attempt));
  else st.bind_null(2);
  if (bind) bind(st);
  st.run();
  if (db.changes() != 1) throw refusal(db, id, guard);
}

// A named transition: the guard is its rule, the status its target.
void transit(Database& db, int64_t id, JobTransition t, std::optional<int> attempt, const std::string& set,
             const std::function<void(Statement&)>& bind = {}) {
  const JobTransitionRule& rule = transition_rule(t);
  update_guarded(db, id, {rule.name, rule.from, attempt},
                 fmt::format("status = '{}'{}{}", to_string(rule.to), set.empty() ? "" : ", ", set), bind);
}

// Off its nodes: no placement, GPUs or supervisor; with new_attempt the attempt that ran ends
// here, so its supervisor records nothing when it exits.
std::string released(bool new_attempt) {
  return std::string("reason = ?3, placement = '[]', alloc = 0, nodes = '', sup_pid = 0, sup_start = 0") +
         (new_attempt ? ", attempt = attempt + 1" : "");
}

}  // namespace

int64_t insert_job(Database& db, const JobSpec& spec, int64_t now_ms) {
  auto insert = db.prepare(
      "INSERT INTO jobs(project, name, type, image, user, gpu, pods, spec, status, reason, created_ms, "
      "preemptible, ttl_seconds) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?12,'waiting for the scheduler',?9,?10,?11)");
  insert.bind(1, spec.project).bind(2, spec.name).bind(3, std::string(to_string(spec.type)))
      .bind(4, spec.image).bind(5, spec.user).bind(6, spec.gpu)
      .bind(7, static_cast<int64_t>(spec.gpu_ranks()))
      .bind(8, spec_to_json(spec).dump()).bind(9, now_ms).bind(12, std::string(to_string(JobStatus::kPending)));
  if (auto p = preemptible_column(spec)) insert.bind(10, static_cast<int64_t>(*p));
  else insert.bind_null(10);
  if (spec.ttl_after_finish_seconds) insert.bind(11, *spec.ttl_after_finish_seconds);
  else insert.bind_null(11);
  insert.run();
  return db.last_insert_id();
}

int start_job(Database& db, int64_t id, const std::vector<sched::PodPlacement>& placement, int64_t now_ms) {
  json stored = json::array();
  double alloc = 0;
  std::string nodes;
  for (const auto& p : placement) {
    stored.push_back({{"node", p.node}, {"gpus", p.gpu_indices}, {"share", p.share_per_gpu}});
    alloc += p.share_per_gpu * static_cast<double>(p.gpu_indices.size());
    if (("," + nodes + ",").find("," + p.node + ",") == std::string::npos) nodes += (nodes.empty() ? "" : ",") + p.node;
  }
  transit(db, id, JobTransition::kStart, std::nullopt,
          "reason = '', placement = ?3, attempt = attempt + 1, "
          "started_ms = CASE WHEN started_ms = 0 THEN ?4 ELSE started_ms END, alloc = ?5, nodes = ?6",
          [&](Statement& st) { st.bind(3, stored.dump()).bind(4, now_ms).bind(5, alloc).bind(6, nodes); });
  auto st = db.prepare("SELECT attempt FROM jobs WHERE id = ?1");
  st.bind(1, id);
  st.step();
  return static_cast<int>(st.integer(0));
}

void preempt_job(Database& db, int64_t id, const std::string& reason) {
  transit(db, id, JobTransition::kPreempt, std::nullopt, released(true) + ", preemptions = preemptions + 1",
          [&](Statement& st) { st.bind(3, reason); });
}

void run_job_again(Database& db, int64_t id, int attempt, const std::string& reason) {
  transit(db, id, JobTransition::kRunAgain, attempt, released(false), [&](Statement& st) { st.bind(3, reason); });
}

void finish_job(Database& db, int64_t id, int attempt, bool ok, const std::string& reason, int exit_code,
                int64_t now_ms) {
  transit(db, id, ok ? JobTransition::kSucceed : JobTransition::kFail, attempt,
          "reason = ?3, exit_code = ?4, finished_ms = ?5, sup_pid = 0", [&](Statement& st) {
            st.bind(3, reason).bind(4, static_cast<int64_t>(exit_code)).bind(5, now_ms);
          });
}

void fail_lost_supervisor(Database& db, int64_t id, const std::string& reason, int64_t now_ms) {
  transit(db, id, JobTransition::kLoseSupervisor, std::nullopt, "reason = ?3, finished_ms = ?4, sup_pid = 0",
          [&](Statement& st) { st.bind(3, reason).bind(4, now_ms); });
}

void suspend_job(Database& db, int64_t id, const std::string& reason) {
  transit(db, id, JobTransition::kSuspend, std::nullopt, released(true), [&](Statement& st) { st.bind(3, reason); });
}

void resume_job(Database& db, int64_t id, const std::string& reason) {
  transit(db, id, JobTransition::kResume, std::nullopt, "reason = ?3", [&](Statement& st) { st.bind(3, reason); });
}

void record_supervisor(Database& db, int64_t id, int attempt, pid_t pid, long long start_time) {
  update_guarded(db, id, {"record the supervisor of", {JobStatus::kRunning}, attempt},
                 "sup_pid = ?3, sup_start = ?4, child_pgid = 0, child_start = 0", [&](Statement& st) {
                   st.bind(3, static_cast<int64_t>(pid)).bind(4, static_cast<int64_t>(start_time));
                 });
}

void record_job_processes(Database& db, int64_t id, int attempt, pid_t pgid, long long start_time) {
  update_guarded(db, id, {"record the processes of", {JobStatus::kRunning}, attempt},
                 "child_pgid = ?3, child_start = ?4", [&](Statement& st) {
                   st.bind(3, static_cast<int64_t>(pgid)).bind(4, static_cast<int64_t>(start_time));
                 });
}

void set_pending_reason(Database& db, int64_t id, const std::string& reason) {
  update_guarded(db, id, {"set the pending reason of", {JobStatus::kPending}, std::nullopt}, "reason = ?3",
                 [&](Statement& st) { st.bind(3, reason); });
}

void erase_job(Database& db, int64_t id) {
  db.prepare("DELETE FROM events WHERE job_id = ?1").bind(1, id).run();
  db.prepare("DELETE FROM jobs WHERE id = ?1").bind(1, id).run();
}

}  // namespace lane::submit::local
