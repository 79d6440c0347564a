#include "submit/local/state/state_store.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "common/clock.h"
#include "submit/core/workload_json.h"
#include "submit/local/state/job_table.h"

namespace lane::submit::local {
using nlohmann::json;

std::vector<std::string> Paths::claim_dirs(const JobSpec& spec) const {
  std::vector<std::string> dirs;
  for (const auto& p : spec.pvcs) dirs.push_back((volumes_dir() / p.claim).string());
  return dirs;
}

namespace {

bool has_column(Database& db, const std::string& table, const std::string& column) {
  auto st = db.prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  st.bind(1, table).bind(2, column);
  return st.step();
}

}  // namespace

void ensure_schema_in_transaction(Database& db) {
  db.exec(R"sql(
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS projects(
      name TEXT PRIMARY KEY, gpu_quota REAL NOT NULL, over_quota INTEGER NOT NULL,
      created_ms INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS nodes(name TEXT PRIMARY KEY, gpus INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS jobs(
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, image TEXT NOT NULL,
      user TEXT NOT NULL, gpu REAL NOT NULL, pods INTEGER NOT NULL, spec TEXT NOT NULL,
      status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
      placement TEXT NOT NULL DEFAULT '[]',
      attempt INTEGER NOT NULL DEFAULT 0, preemptions INTEGER NOT NULL DEFAULT 0,
      sup_pid INTEGER NOT NULL DEFAULT 0, sup_start INTEGER NOT NULL DEFAULT 0,
      child_pgid INTEGER NOT NULL DEFAULT 0, child_start INTEGER NOT NULL DEFAULT 0,
      exit_code INTEGER, created_ms INTEGER NOT NULL,
      started_ms INTEGER NOT NULL DEFAULT 0, finished_ms INTEGER NOT NULL DEFAULT 0,
      alloc REAL NOT NULL DEFAULT 0, nodes TEXT NOT NULL DEFAULT '',
      preemptible INTEGER, ttl_seconds INTEGER,
      UNIQUE(project, name));
    CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status);
    CREATE TABLE IF NOT EXISTS events(
      id INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL, time_ms INTEGER NOT NULL,
      source TEXT NOT NULL, type TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS events_job ON events(job_id);
    CREATE TABLE IF NOT EXISTS volumes(
      name TEXT PRIMARY KEY, size TEXT NOT NULL, size_bytes INTEGER NOT NULL,
      storage_class TEXT NOT NULL, created_by TEXT NOT NULL, created_ms INTEGER NOT NULL,
      project TEXT NOT NULL DEFAULT '');
    CREATE TABLE IF NOT EXISTS project_uids(project TEXT PRIMARY KEY, uid INTEGER NOT NULL UNIQUE);
  )sql");
  // Earlier versions kept no project per claim: volumes.project stays empty until
  // LocalVolumes::owner resolves it from the claim's origin.
  if (!has_column(db, "volumes", "project")) db.exec("ALTER TABLE volumes ADD COLUMN project TEXT NOT NULL DEFAULT ''");
  // Earlier versions had no jobs.preemptible and jobs.ttl_seconds (NULL: the default by type, no TTL).
  if (!has_column(db, "jobs", "ttl_seconds")) {
    db.exec("ALTER TABLE jobs ADD COLUMN preemptible INTEGER");
    db.exec("ALTER TABLE jobs ADD COLUMN ttl_seconds INTEGER");
  }
}

void ensure_schema(Database& db) {
  WriteTransaction tx(db);
  ensure_schema_in_transaction(db);
  tx.commit();
}

std::optional<bool> preemptible_column(const JobSpec& spec) {
  if (spec.preemptibility == Preemptibility::kDefault) return std::nullopt;
  return is_preemptible(spec);
}

namespace {

const char* kJobColumns =
    "id, project, name, type, image, user, gpu, pods, status, reason, placement, attempt, "
    "preemptions, sup_pid, sup_start, child_pgid, child_start, exit_code, created_ms, "
    "started_ms, finished_ms, alloc, nodes, preemptible, ttl_seconds";

JobRow read_row(Statement& st, bool with_spec) {
  JobRow r;
  r.id = st.integer(0);
  r.project = st.text(1);
  r.name = st.text(2);
  r.type = st.text(3);
  r.image = st.text(4);
  r.user = st.text(5);
  r.gpu = st.real(6);
  r.pods = static_cast<int>(st.integer(7));
  r.status = job_status_from_string(st.text(8));
  r.reason = st.text(9);
  // The placement JSON is only parsed where it matters (running jobs, describe); `list` over
  // thousands of finished jobs reads the denormalised alloc/nodes columns instead.
  if (with_spec || r.status == JobStatus::kRunning || r.status == JobStatus::kPending) {
    std::string placement = st.text(10);
    r.placement = placement == "[]" ? json::array() : json::parse(placement);
  }
  r.attempt = static_cast<int>(st.integer(11));
  r.preemptions = static_cast<int>(st.integer(12));
  r.sup_pid = static_cast<pid_t>(st.integer(13));
  r.sup_start = st.integer(14);
  r.child_pgid = static_cast<pid_t>(st.integer(15));
  r.child_start = st.integer(16);
  if (!st.is_null(17)) r.exit_code = static_cast<int>(st.integer(17));
  r.created_ms = st.integer(18);
  r.started_ms = st.integer(19);
  r.finished_ms = st.integer(20);
  r.alloc = st.real(21);
  r.nodes = st.text(22);
  if (!st.is_null(23)) r.preemptible = st.integer(23) != 0;
  if (!st.is_null(24)) r.ttl_seconds = st.integer(24);
  if (!st.is_null(25)) r.spec_json = st.text(25);
  return r;
}

std::string select_jobs(bool with_spec) {
  // Without the spec, a listing still carries a job's --label values (`list -l`): only they,
  // read by SQLite from the specs that have any.
  const char* kLabelsOnly = ", CASE WHEN instr(spec, '\"labels\"') > 0 AND json_valid(spec) "
                            "THEN json_object('labels', json(json_extract(spec, '$.labels'))) END";
  return std::string("SELECT ") + kJobColumns + (with_spec ? ", spec" : kLabelsOnly) + " FROM jobs ";
}

// "WHERE ..." for the jobs of `project` (?1; all without), Pending and Running only with active_only.
std::string job_filter(const std::optional<std::string>& project, bool active_only) {
  std::string where;
  if (project) where = "project = ?1";
  if (active_only) where += std::string(where.empty() ? "" : " AND ") + status_in({JobStatus::kPending, JobStatus::kRunning});
  return where.empty() ? where : "WHERE " + where;
}

}  // namespace

size_t count_job_rows(Database& db, const std::optional<std::string>& project, bool active_only) {
  auto st = db.prepare("SELECT count(*) FROM jobs " + job_filter(project, active_only));
  if (project) st.bind(1, *project);
  return st.step() ? size_t(st.integer(0)) : 0;
}

void for_each_job_row(Database& db, const std::optional<std::string>& project, bool with_spec, bool active_only,
                      const std::function<void(JobRow&&)>& on_row) {
  auto st = db.prepare(select_jobs(with_spec) + job_filter(project, active_only) + " ORDER BY project, name");
  if (project) st.bind(1, *project);
  while (st.step()) on_row(read_row(st, with_spec));
}

std::vector<JobRow> load_job_rows(Database& db, const std::optional<std::string>& project,
                                  bool with_spec, bool active_only) {
  std::vector<JobRow> rows;
  rows.reserve(1024);
  for_each_job_row(db, project, with_spec, active_only, [&](JobRow&& row) { rows.push_back(std::move(row)); });
  return rows;
}

std::optional<JobRow> load_job_row(Database& db, const std::string& project,
                                   const std::string& name, bool with_spec) {
  auto st = db.prepare(select_jobs(with_spec) + "WHERE project = ?1 AND name = ?2");
  st.bind(1, project).bind(2, name);
  if (!st.step()) return std::nullopt;
  return read_row(st, with_spec);
}

std::optional<JobRow> load_job_row_by_id(Database& db, int64_t id, bool with_spec) {
  auto st = db.prepare(select_jobs(with_spec) + "WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_row(st, with_spec);
}

void add_event(Database& db, int64_t job_id, const std::string& source, const std::string& type,
               const std::string& reason, const std::string& message) {
  db.prepare("INSERT INTO events(job_id, time_ms, source, type, reason, message) VALUES(?1,?2,?3,?4,?5,?6)")
      .bind(1, job_id).bind(2, now_unix_ms()).bind(3, source).bind(4, type).bind(5, reason).bind(6, message)
      .run();
}

std::vector<JobEvent> load_events(Database& db, int64_t job_id) {
  auto st = db.prepare("SELECT time_ms, source, type, reason, message FROM events WHERE job_id = ?1 ORDER BY id");
  st.bind(1, job_id);
  std::vector<JobEvent> out;
  while (st.step()) out.push_back({st.integer(0), st.text(1), st.text(2), st.text(3), st.text(4)});
  return out;
}

namespace {

// "2x NVIDIA H100 80GB HBM3, 1x NVIDIA A100-SXM4-40GB": the models in the order first seen.
std::string model_summary(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& n : names) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == n; });
    if (it == counts.end()) counts.emplace_back(n, 1);
    else ++it->second;
  }
  std::string out;
  for (const auto& [name, count] : counts) out += (out.empty() ? "" : ", ") + std::to_string(count) + "x " + name;
  return out;
}

// The GPUs `nvidia-smi --query-gpu=name` lists (none when it is missing or fails), cached in the
// meta table: 'detected_gpus' (the count) and 'detected_gpu_models' (model_summary).
int detect_gpus(Database& db) {
  auto cached = db.prepare("SELECT value FROM meta WHERE key = 'detected_gpus'");
  if (cached.step()) return std::stoi(cached.text(0));
  std::vector<std::string> names;
  // Fixed command line, no user input: one line per GPU, its model name.
  if (FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r")) {
    char line[512];
    while (fgets(line, sizeof line, p)) {
      std::string name(line);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
      if (!name.empty()) names.push_back(name);
    }
    if (pclose(p) != 0) names.clear();  // a driver error is printed on stdout too
  }
  // Cached best effort: a concurrent reader may lose the race to write it, which is harmless.
  try {
    db.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES('detected_gpus', ?1), ('detected_gpu_models', ?2)")
        .bind(1, std::to_string(names.size())).bind(2, model_summary(names)).run();
  } catch (const std::exception&) {
  }
  return static_cast<int>(names.size());
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "local";
  std::string name;
  for (char c : std::string(buf)) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '-';
  }
  return name.substr(0, 63);
}

}  // namespace

std::vector<NodeSpec> effective_nodes(Database& db, bool* declared) {
  std::vector<NodeSpec> nodes;
  auto st = db.prepare("SELECT name, gpus FROM nodes ORDER BY name");
  while (st.step()) nodes.push_back({st.text(0), static_cast<int>(st.integer(1))});
  if (declared) *declared = !nodes.empty();
  if (nodes.empty()) nodes.push_back({host_name(), detect_gpus(db)});
  return nodes;
}

std::string detected_gpu_models(Database& db) {
  detect_gpus(db);
  auto st = db.prepare("SELECT value FROM meta WHERE key = 'detected_gpu_models'");
  return st.step() ? st.text(0) : std::string();
}

std::vector<ProjectSpec> load_projects(Database& db) {
  std::vector<ProjectSpec> out;
  bool has_default = false;
  auto st = db.prepare("SELECT name, gpu_quota, over_quota FROM projects ORDER BY name");
  while (st.step()) {
    out.push_back({st.text(0), st.real(1), st.integer(2) != 0});
    has_default = has_default || out.back().name == "default";
  }
  if (!has_default) out.insert(out.begin(), ProjectSpec{"default", 0, true});
  return out;
}

std::optional<ProjectSpec> find_project(Database& db, const std::string& name) {
  for (auto& p : load_projects(db))
    if (p.name == name) return p;
  return std::nullopt;
}

bool is_terminal(JobStatus status) { return status == JobStatus::kSucceeded || status == JobStatus::kFailed; }

JobInfo job_info_from_row(const JobRow& row, bool with_pods) {
  JobInfo info;
  if (!row.spec_json.empty()) info.spec = spec_from_json(json::parse(row.spec_json));
  info.spec.name = row.name;
  info.spec.project = row.project;
  info.spec.type = job_type_from_string(row.type);
  info.spec.image = row.image;
  info.spec.user = row.user;
  info.spec.gpu = row.gpu;
  const bool pytorch = info.spec.type == JobType::kPyTorch;
  info.spec.processes = row.type == "Mpi" ? row.pods : pytorch ? row.pods - 1 : 1;
  if (row.preemptible)
    info.spec.preemptibility = *row.preemptible ? Preemptibility::kPreemptible : Preemptibility::kNonPreemptible;
  info.status = row.status;
  info.status_reason = row.reason;
  info.exit_code = row.exit_code;
  info.created_unix_ms = row.created_ms;
  info.started_unix_ms = row.started_ms;
  info.finished_unix_ms = row.finished_ms;

  bool running = row.status == JobStatus::kRunning;
  std::string pod_status = to_string(row.status);
  for (size_t start = 0; !row.nodes.empty() && start <= row.nodes.size();) {
    size_t comma = row.nodes.find(',', start);
    info.nodes.push_back(row.nodes.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  info.gpus_allocated = running ? row.alloc : 0;
  int pod_count = row.type == "Mpi" ? row.pods + 1 : row.pods;  // MPI: launcher + workers; PyTorch: master + workers
  info.pods_running = running ? pod_count : 0;
  info.pods_pending = row.status == JobStatus::kPending ? pod_count : 0;
  if (!with_pods) return info;

  auto pod_from = [&](const std::string& name, const std::string& role, size_t index, bool gpu_pod) {
    PodInfo pod;
    pod.name = name;
    pod.role = role;
    pod.status = pod_status;
    pod.created_unix_ms = row.created_ms;
    pod.started_unix_ms =
        row.status == JobStatus::kPending || row.status == JobStatus::kSuspended ? 0 : row.started_ms;
    if (index < row.placement.size()) {
      const auto& p = row.placement[index];
      pod.node = p.value("node", "");
      if (gpu_pod) {
        pod.gpu_indices = p["gpus"].get<std::vector<int>>();
        pod.gpu_share = p.value("share", 1.0);
      }
    }
    return pod;
  };
  if (row.type == "Mpi") {
    info.pods.push_back(pod_from(row.name + "-launcher", "launcher", 0, false));
    for (int i = 0; i < row.pods; ++i)
      info.pods.push_back(pod_from(row.name + "-worker-" + std::to_string(i), "worker", i, true));
  } else if (pytorch) {
    info.pods.push_back(pod_from(row.name + "-master-0", "master", 0, true));
    for (int i = 1; i < row.pods; ++i)
      info.pods.push_back(pod_from(row.name + "-worker-" + std::to_string(i - 1), "worker", i, true));
  } else {
    info.pods.push_back(pod_from(row.name + "-0", "main", 0, true));
  }
  return info;
}

}  // namespace lane::submit::local
