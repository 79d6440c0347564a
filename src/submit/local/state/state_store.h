#pragma once
// The local backend's state: one SQLite file, $LANECTL_HOME/state.db, shared by every lanectl
// process and every job supervisor. Schema and row reading live here; a job row's changes in
// job_table.h; the rules (scheduling, supervision) in scheduling_pass.cpp and the supervisor.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/backend.h"
#include "submit/local/state/sqlite_db.h"

namespace lane::submit::local {

// Layout of LANECTL_HOME.
struct Paths {
  std::filesystem::path home;
  std::filesystem::path db() const { return home / "state.db"; }
  std::filesystem::path job_dir(int64_t id) const { return home / "jobs" / std::to_string(id); }
  std::filesystem::path volumes_dir() const { return home / "volumes"; }
  // The host directory of each of the job's claims, in spec.pvcs order.
  std::vector<std::string> claim_dirs(const JobSpec& spec) const;
};

// A job as stored (its changes: job_table.h). `placement` is a JSON array of {node, gpus:[..], share} (one per pod).
struct JobRow {
  int64_t id = 0;
  std::string project, name, type, image, user;
  JobStatus status = JobStatus::kPending;
  std::string reason;
  double gpu = 0;
  int pods = 1;                     // pods with GPUs: MPI workers; PyTorch master + workers; else 1
  std::string spec_json;            // full JobSpec (loaded with_spec); else {"labels": ...} of a job that has any
  nlohmann::json placement = nlohmann::json::array();
  int attempt = 0;
  int preemptions = 0;
  pid_t sup_pid = 0;
  long long sup_start = 0;
  pid_t child_pgid = 0;
  long long child_start = 0;
  std::optional<int> exit_code;
  int64_t created_ms = 0, started_ms = 0, finished_ms = 0;
  double alloc = 0;                 // GPUs of the placement (denormalised for list)
  std::string nodes;                // distinct placement nodes, comma separated
  std::optional<bool> preemptible;  // --preemptible / --non-preemptible; unset: by type
  std::optional<int64_t> ttl_seconds;  // --ttl-after-finish: deleted this long after it finished
};

// Creates the schema when missing and migrates a state database written by an earlier version
// (volumes.project; jobs.preemptible and jobs.ttl_seconds), in one write transaction: idempotent,
// safe under concurrency.
void ensure_schema(Database& db);
// The same inside the caller's write transaction (WriteTransaction).
void ensure_schema_in_transaction(Database& db);

// The row's columns that follow from the spec (preemptible, ttl_seconds), for an INSERT.
std::optional<bool> preemptible_column(const JobSpec& spec);

// The jobs of `project` (all without), by project and name; active_only: Pending and Running.
std::vector<JobRow> load_job_rows(Database& db, const std::optional<std::string>& project,
                                  bool with_spec, bool active_only = false);
// The same one row at a time, as SQLite returns them (no vector of rows).
void for_each_job_row(Database& db, const std::optional<std::string>& project, bool with_spec, bool active_only,
                      const std::function<void(JobRow&&)>& on_row);
// How many rows those two would give (to size a vector once).
size_t count_job_rows(Database& db, const std::optional<std::string>& project, bool active_only = false);
std::optional<JobRow> load_job_row(Database& db, const std::string& project,
                                   const std::string& name, bool with_spec);
std::optional<JobRow> load_job_row_by_id(Database& db, int64_t id, bool with_spec);

void add_event(Database& db, int64_t job_id, const std::string& source, const std::string& type,
               const std::string& reason, const std::string& message);
std::vector<JobEvent> load_events(Database& db, int64_t job_id);

// Declared nodes, or the default node (hostname, the GPUs `nvidia-smi --query-gpu` lists) when none are.
std::vector<NodeSpec> effective_nodes(Database& db, bool* declared = nullptr);
// The models of the GPUs nvidia-smi found ("2x NVIDIA H100 80GB HBM3"); "" when none.
std::string detected_gpu_models(Database& db);

struct ProjectRow {
  ProjectSpec spec;
};
// Projects from the table plus the implicit "default" (quota 0, over quota allowed).
std::vector<ProjectSpec> load_projects(Database& db);
std::optional<ProjectSpec> find_project(Database& db, const std::string& name);

// JobInfo for list/describe from a row (pods derived from type + placement; list skips them).
JobInfo job_info_from_row(const JobRow& row, bool with_pods = true);

bool is_terminal(JobStatus status);  // Succeeded | Failed

}  // namespace lane::submit::local
