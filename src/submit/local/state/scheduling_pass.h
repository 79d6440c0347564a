#pragma once
// A scheduling pass on the local state: read nodes, projects and active jobs, ask the pure
// scheduler (submit/scheduler) what to do, and apply its Decision in the same write
// transaction: start jobs (spawn their supervisors), requeue preempted ones, record pending
// reasons and events. Passes run after submit, delete, job end and project/node changes.
#include <sys/types.h>

#include <utility>
#include <vector>

#include "submit/local/state/state_store.h"
#include "submit/scheduler/scheduler.h"

namespace lane::submit::local {

// Supervisors to stop once the transaction has committed (pid, start time).
struct PassEffects {
  std::vector<std::pair<pid_t, long long>> terminate;
  void merge(const PassEffects& other) {
    terminate.insert(terminate.end(), other.terminate.begin(), other.terminate.end());
  }
};

sched::ClusterState build_cluster_state(Database& db);
sched::Workload workload_from_row(const JobRow& row);

// Call inside a WriteTransaction.
PassEffects run_scheduling_pass(Database& db, const Paths& paths);

// Running jobs whose supervisor is gone (killed with SIGKILL, machine rebooted): their leftover
// processes are killed and the job is marked Failed with the reason. Inside a WriteTransaction;
// returns true when it changed something (then run a pass).
bool fail_jobs_with_lost_supervisors(Database& db);

// Cheap read-only check used before taking the write lock.
bool any_lost_supervisor(Database& db);

// SIGTERM to each supervisor that is still the process we started (it escalates to SIGKILL).
void terminate_supervisors(const PassEffects& effects);

}  // namespace lane::submit::local
