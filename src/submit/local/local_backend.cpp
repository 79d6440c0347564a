#include "submit/local/local_backend.h"

<<<<<<< HEAD
=======
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/local/local_snapshot_store.h"
#include "submit/core/workload_json.h"
#include "submit/local/job_launch.h"
#include "submit/local/job_user.h"
#include "submit/local/sandbox.h"
#include "submit/local/log_files.h"
#include "submit/local/process_identity.h"

>>>>>>> loops
namespace lane::submit::local {

LocalBackend::LocalBackend(const std::filesystem::path& home)
    : state_(home), jobs_(state_), projects_(state_), cluster_(state_), storage_(state_) {
  state_.check_supervisors();
}

LocalBackend::~LocalBackend() = default;

<<<<<<< HEAD
=======
storage::SnapshotStore& LocalBackend::snapshots() {
  if (!snapshots_)
    snapshots_ = std::make_unique<storage::local::LocalSnapshotStore>(paths_.home / "snapshots", volumes_);
  return *snapshots_;
}

void LocalBackend::check_supervisors() {
  if (!any_lost_supervisor(db_)) return;
  PassEffects effects;
  {
    WriteTransaction tx(db_);
    if (fail_jobs_with_lost_supervisors(db_)) effects = run_scheduling_pass(db_, paths_);
    tx.commit();
  }
  terminate_supervisors(effects);
}

void LocalBackend::reschedule() {
  PassEffects effects;
  {
    WriteTransaction tx(db_);
    effects = run_scheduling_pass(db_, paths_);
    tx.commit();
  }
  terminate_supervisors(effects);
}

// ---------------------------------------------------------------------------- jobs

void LocalBackend::validate(const JobSpec& spec) {
  require_dns1123_label(spec.name, "job name (--name)");
  require_dns1123_label(spec.project, "project (-p)");
  if (!find_project(db_, spec.project))
    throw UsageError("project '" + spec.project + "' does not exist; create it with `lanectl project create " +
                     spec.project + " --gpu-quota N` or pick one from `lanectl project list`");
  if (spec.gpu < 0 || !std::isfinite(spec.gpu))
    throw UsageError(fmt::format("--gpu {:g} is invalid; use 0, a fraction below 1 (e.g. 0.5) or a whole number", spec.gpu));
  if (spec.gpu > 1 && !is_whole(spec.gpu))
    throw UsageError(fmt::format("--gpu {:g}: a fractional GPU must be below 1 (e.g. 0.5); larger requests must be whole GPUs", spec.gpu));
  if (spec.type == JobType::kMpi && spec.gpu > 0 && !is_whole(spec.gpu))
    throw UsageError(fmt::format("--gpu {:g} with --processes: MPI workers need whole GPUs; use --gpu 1", spec.gpu));
  if (spec.processes < 1)
    throw UsageError(fmt::format("--processes {} is invalid; use 1 or more", spec.processes));
  for (const auto& p : spec.pvcs) {
    if (p.mount_path.empty() || p.mount_path[0] != '/')
      throw UsageError("--pvc mount path '" + p.mount_path + "' must be absolute, e.g. /mnt");
    if (!p.create && !volumes_.find(p.claim))
      throw UsageError("--pvc: volume '" + p.claim + "' does not exist; create it with `--pvc :SIZE:" +
                       p.mount_path + "` in an earlier job or restore a snapshot into it");
    if (p.create) continue;
    std::string owner = volumes_.owner(p.claim);
    if (!owner.empty() && owner != spec.project)
      throw UsageError(fmt::format(
          "--pvc {}:{}: claim '{}' belongs to project '{}'; a job of project '{}' can mount only its own "
          "project's claims (as a PVC belongs to its namespace). Submit the job in project '{}' (-p {}), "
          "or give it a claim of project '{}' (`--pvc :SIZE:{}` creates one)",
          p.claim, p.mount_path, p.claim, owner, spec.project, owner, owner, spec.project, p.mount_path));
  }
  for (const auto& v : spec.volumes) {
    if (v.container_path.empty() || v.container_path[0] != '/')
      throw UsageError("-v container path '" + v.container_path + "' must be absolute");
    if (!fs::is_directory(v.host_path))
      throw UsageError("-v host path '" + v.host_path + "' is not an existing directory");
    if (path_within(v.host_path, paths_.home.string()))
      throw UsageError("-v host path '" + v.host_path + "' is inside LANECTL_HOME (" + paths_.home.string() +
                       "), the backend's state, which jobs never see; mount claims with --pvc CLAIM:PATH instead");
  }
  shm_size_bytes(spec);
  job_command(spec);  // throws when the command is unknown
  sched::ClusterState state = build_cluster_state(db_);
  JobRow probe;
  probe.project = spec.project;
  probe.name = spec.name;
  probe.type = to_string(spec.type);
  probe.gpu = spec.gpu;
  probe.pods = spec.type == JobType::kMpi ? spec.processes : 1;
  if (auto why = sched::never_fits(state, workload_from_row(probe)))
    throw UsageError(*why + "; declare the cluster's GPUs with `lanectl cluster set-nodes NAME=GPUS...` "
                     "or request fewer GPUs");
}

json LocalBackend::render(const JobSpec& spec) {
  validate(spec);
  JobSpec resolved = spec;
  json items = json::array();
  std::vector<std::string> volume_paths;
  for (size_t i = 0; i < resolved.pvcs.size(); ++i) {
    auto& p = resolved.pvcs[i];
    if (p.create) {
      p.claim = claim_for(resolved, i);
      items.push_back({{"kind", "Volume"}, {"name", p.claim}, {"size", p.size},
                       {"storageClass", p.storage_class},
                       {"path", (paths_.volumes_dir() / p.claim).string()}});
    }
    volume_paths.push_back((paths_.volumes_dir() / p.claim).string());
  }
  json placeholder = json::array();
  for (int i = 0; i < (spec.type == JobType::kMpi ? spec.processes : 1); ++i)
    placeholder.push_back({{"node", "<scheduled>"}, {"gpus", json::array()}, {"share", 1.0}});
  LaunchPlan plan = make_launch_plan(resolved, placeholder, volume_paths, paths_.home.string(), self_executable());
  json mounts = json::array();
  for (const auto& m : plan.mounts)
    mounts.push_back({{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
  json env = json::array();
  for (const auto& [name, value] : plan.env) env.push_back({{"name", name}, {"value", value}});
  items.push_back({{"kind", "LocalJob"},
                   {"name", resolved.name},
                   {"project", resolved.project},
                   {"spec", spec_to_json(resolved)},
                   {"launch", {{"argv", plan.argv}, {"env", env}, {"mounts", mounts},
                               {"shmBytes", plan.shm_bytes}}}});
  return {{"apiVersion", "lanectl/v1"}, {"kind", "List"}, {"items", items}};
}

JobInfo LocalBackend::submit(const JobSpec& input) {
  JobSpec spec = input;
  PassEffects effects;
  {
    WriteTransaction tx(db_);
    validate(spec);
    if (load_job_row(db_, spec.project, spec.name, false))
      throw UsageError("job '" + spec.name + "' already exists in project '" + spec.project +
                       "'; choose another --name or delete it with `lanectl delete job " + spec.name +
                       " -p " + spec.project + "`");
    for (size_t i = 0; i < spec.pvcs.size(); ++i) {
      auto& p = spec.pvcs[i];
      if (!p.create) continue;
      p.claim = claim_for(spec, i);
      std::string owner = "job/" + spec.project + "/" + spec.name;
      if (auto existing = volumes_.find(p.claim)) {
        // A resubmitted job (same name) gets its old claim back, as a re-created PVC would bind.
        if (existing->created_by != owner)
          throw Error("volume '" + p.claim + "' already exists (created by " + existing->created_by +
                      "); use another job name or mount it with --pvc " + p.claim + ":" + p.mount_path);
      } else {
        volumes_.create_in_transaction(p.claim, p.size, p.storage_class, owner);
      }
    }
    std::vector<std::string> adopted;
    for (const auto& p : spec.pvcs)
      if (!p.create && volumes_.owner(p.claim).empty()) {
        volumes_.adopt(p.claim, spec.project);
        adopted.push_back(p.claim);
      }
    int64_t now = now_unix_ms();
    db_.prepare("INSERT INTO jobs(project, name, type, image, user, gpu, pods, spec, status, reason, created_ms) "
                "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,'Pending','waiting for the scheduler',?9)")
        .bind(1, spec.project).bind(2, spec.name).bind(3, std::string(to_string(spec.type)))
        .bind(4, spec.image).bind(5, spec.user).bind(6, spec.gpu)
        .bind(7, static_cast<int64_t>(spec.type == JobType::kMpi ? spec.processes : 1))
        .bind(8, spec_to_json(spec).dump()).bind(9, now).run();
    const int64_t job_id = db_.last_insert_id();
    add_event(db_, job_id, "job/" + spec.name, "Normal", "Submitted",
              fmt::format("job submitted by {}", spec.user.empty() ? "unknown user" : spec.user));
    for (const auto& claim : adopted)
      add_event(db_, job_id, "pvc/" + claim, "Normal", "ClaimAdopted",
                "claim " + claim + " had no project (recorded by an earlier version); it now belongs to project " +
                    spec.project);
    effects = run_scheduling_pass(db_, paths_);
    tx.commit();
  }
  terminate_supervisors(effects);
  return *describe_job(spec.name, spec.project);
}

std::string LocalBackend::next_job_name(const std::string& project, const std::string& prefix) {
  require_dns1123_label(prefix, "--job-name-prefix");
  for (int n = 1;; ++n) {
    std::string name = fmt::format("{}-{}", prefix, n);
    if (!load_job_row(db_, project, name, false)) return name;
  }
}

std::vector<JobInfo> LocalBackend::list_jobs(const std::optional<std::string>& project) {
  std::vector<JobRow> rows;
  {
    ReadTransaction tx(db_);
    rows = load_job_rows(db_, project, false);
  }
  std::vector<JobInfo> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(job_info_from_row(r, false));
  return out;
}

std::optional<JobInfo> LocalBackend::describe_job(const std::string& name, const std::string& project) {
  ReadTransaction tx(db_);
  auto row = load_job_row(db_, project, name, true);
  if (!row) return std::nullopt;
  JobInfo info = job_info_from_row(*row);
  info.events = load_events(db_, row->id);
  return info;
}

void LocalBackend::stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                               std::ostream& out) {
  auto row = load_job_row(db_, project, name, false);
  if (!row)
    throw Error("job '" + name + "' does not exist in project '" + project +
                "'; check the name with `lanectl list jobs -p " + project + "`");
  JobInfo info = job_info_from_row(*row);
  std::function<bool(const std::string&)> filter;
  if (!opts.pod.empty()) {
    bool known = false;
    for (const auto& p : info.pods) known = known || p.name == opts.pod;
    if (!known)
      throw UsageError("--pod " + opts.pod + ": job '" + name + "' has no such pod; see `lanectl describe job " +
                       name + " -p " + project + "`");
    std::string worker_prefix = name + "-worker-";
    if (opts.pod.rfind(worker_prefix, 0) == 0) {
      // MPI ranks share the launcher's output; --tag-output marks each line with its rank.
      std::string tag = "[1," + opts.pod.substr(worker_prefix.size()) + "]<";
      filter = [tag](const std::string& line) { return line.rfind(tag, 0) == 0; };
    }
  }
  fs::path path = paths_.job_dir(row->id) / "output.log";
  if (!opts.follow && !fs::exists(path) && row->status == "Pending")
    throw Error("job '" + name + "' has not started yet (" + row->reason + "); see `lanectl describe job " +
                name + " -p " + project + "`");
  int64_t id = row->id;
  auto finished = [this, id] {
    auto r = load_job_row_by_id(db_, id, false);
    return !r || is_terminal(r->status);
  };
  read_log(path, opts, filter, finished, out);
}

bool LocalBackend::delete_job(const std::string& name, const std::string& project) {
  std::optional<JobRow> row;
  PassEffects effects;
  {
    WriteTransaction tx(db_);
    row = load_job_row(db_, project, name, false);
    if (!row) return false;
    db_.prepare("DELETE FROM events WHERE job_id = ?1").bind(1, row->id).run();
    db_.prepare("DELETE FROM jobs WHERE id = ?1").bind(1, row->id).run();
    effects = run_scheduling_pass(db_, paths_);
    tx.commit();
  }
  if (row->status == "Running") {
    if (process_alive(row->sup_pid, row->sup_start)) {
      effects.terminate.emplace_back(row->sup_pid, row->sup_start);
    } else if (row->child_pgid > 0 && process_alive(row->child_pgid, row->child_start)) {
      kill(-row->child_pgid, SIGKILL);
    }
  }
  terminate_supervisors(effects);
  std::error_code ec;
  fs::remove_all(paths_.job_dir(row->id), ec);
  return true;
}

std::vector<std::string> LocalBackend::delete_all_jobs(const std::string& project) {
  std::vector<std::string> names;
  for (const auto& row : load_job_rows(db_, project, false))
    if (delete_job(row.name, project)) names.push_back(row.name);
  return names;
}

int LocalBackend::exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
                       bool tty, const std::string& pod) {
  if (argv.empty()) throw UsageError("exec needs a command: lanectl exec JOB -- CMD ARGS...");
  auto row = load_job_row(db_, project, name, true);
  if (!row) throw Error("job '" + name + "' does not exist in project '" + project + "'");
  if (row->status != "Running" || !process_alive(row->child_pgid, row->child_start))
    throw Error("job '" + name + "' is " + row->status + ", not running; exec needs a running job");
  JobSpec spec = spec_from_json(json::parse(row->spec_json));
  // The job's environment and user, as its own processes have them (no LANECTL_HOME).
  LaunchPlan plan =
      make_launch_plan(spec, row->placement, paths_.claim_dirs(spec), paths_.home.string(), self_executable());
  JobUser user;
  {
    WriteTransaction tx(db_);
    user = job_user_for_project(db_, spec.project);
    tx.commit();
  }
  plan.uid = user.uid;
  plan.gid = user.gid;
  pid_t target = job_namespace_process(row->child_pgid);
  pid_t child = fork();
  if (child == 0) {
    for (const char* ns : {"pid", "mnt"}) {
      std::string path = fmt::format("/proc/{}/ns/{}", target, ns);
      int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns(fd, 0) != 0) {
        fprintf(stderr, "lanectl: cannot enter the job's namespaces (%s): %s\n", path.c_str(), strerror(errno));
        _exit(126);
      }
    }
    exec_in_job(plan, argv);  // forks into the PID namespace; never returns
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// ---------------------------------------------------------------------------- projects

void LocalBackend::create_project(const ProjectSpec& spec) {
  require_dns1123_label(spec.name, "project name");
  if (spec.gpu_quota < 0) throw UsageError("--gpu-quota must be 0 or more");
  {
    WriteTransaction tx(db_);
    auto st = db_.prepare("SELECT 1 FROM projects WHERE name = ?1");
    st.bind(1, spec.name);
    if (st.step()) throw Error("project '" + spec.name + "' already exists; change it with `lanectl project set-quota`");
    db_.prepare("INSERT INTO projects(name, gpu_quota, over_quota, created_ms) VALUES(?1,?2,?3,?4)")
        .bind(1, spec.name).bind(2, spec.gpu_quota).bind(3, static_cast<int64_t>(spec.over_quota))
        .bind(4, now_unix_ms()).run();
    tx.commit();
  }
  reschedule();
}

std::vector<ProjectStatus> LocalBackend::list_projects() {
  ReadTransaction tx(db_);
  auto specs = load_projects(db_);
  sched::ClusterState state = build_cluster_state(db_);
  sched::Decision decision = sched::schedule(state);
  std::map<std::string, sched::ProjectReport> reports;
  for (const auto& r : decision.projects) reports[r.name] = r;
  std::vector<ProjectStatus> out;
  for (const auto& spec : specs) {
    ProjectStatus s;
    s.spec = spec;
    if (auto it = reports.find(spec.name); it != reports.end()) {
      s.gpus_allocated = it->second.allocated;
      s.gpus_requested = it->second.requested;
      s.fair_share = it->second.fair_share;
      s.explanation = it->second.explanation;
    }
    out.push_back(s);
  }
  // Job counts come from the stored state (what is running now), not from the what-if decision.
  auto st = db_.prepare("SELECT project, status, COUNT(*) FROM jobs WHERE status IN ('Running','Pending') GROUP BY project, status");
  while (st.step())
    for (auto& s : out)
      if (s.spec.name == st.text(0)) (st.text(1) == "Running" ? s.running_jobs : s.pending_jobs) = static_cast<int>(st.integer(2));
  double allocated_now = 0;
  for (auto& s : out) {
    allocated_now = 0;
    for (const auto& row : load_job_rows(db_, s.spec.name, false, true))
      if (row.status == "Running") allocated_now += job_info_from_row(row).gpus_allocated;
    s.gpus_allocated = allocated_now;
  }
  return out;
}

bool LocalBackend::project_exists(const std::string& name) { return find_project(db_, name).has_value(); }

void LocalBackend::delete_project(const std::string& name) {
  require_dns1123_label(name, "project name");
  WriteTransaction tx(db_);
  if (name == "default") throw UsageError("the 'default' project always exists and cannot be deleted");
  if (!find_project(db_, name)) throw Error("project '" + name + "' does not exist");
  auto st = db_.prepare("SELECT COUNT(*) FROM jobs WHERE project = ?1");
  st.bind(1, name);
  st.step();
  if (st.integer(0) > 0)
    throw Error(fmt::format("project '{}' still has {} job(s); delete them first with `lanectl delete --all -p {}`",
                            name, st.integer(0), name));
  db_.prepare("DELETE FROM projects WHERE name = ?1").bind(1, name).run();
  tx.commit();
}

void LocalBackend::set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) {
  require_dns1123_label(name, "project name");
  if (gpu_quota < 0) throw UsageError("--gpu-quota must be 0 or more");
  {
    WriteTransaction tx(db_);
    auto existing = find_project(db_, name);
    if (!existing) throw UsageError("project '" + name + "' does not exist; create it with `lanectl project create " + name + "`");
    db_.prepare("INSERT INTO projects(name, gpu_quota, over_quota, created_ms) VALUES(?1,?2,?3,?4) "
                "ON CONFLICT(name) DO UPDATE SET gpu_quota = excluded.gpu_quota, over_quota = excluded.over_quota")
        .bind(1, name).bind(2, gpu_quota).bind(3, static_cast<int64_t>(over_quota.value_or(existing->over_quota)))
        .bind(4, now_unix_ms()).run();
    tx.commit();
  }
  reschedule();
}

// ---------------------------------------------------------------------------- cluster

void LocalBackend::set_nodes(const std::vector<NodeSpec>& nodes) {
  if (nodes.empty()) throw UsageError("set-nodes needs at least one NAME=GPUS");
  for (const auto& n : nodes) {
    require_dns1123_label(n.name, "node name");
    if (n.gpus < 0) throw UsageError("node " + n.name + ": GPU count must be 0 or more");
  }
  {
    WriteTransaction tx(db_);
    for (const auto& row : load_job_rows(db_, std::nullopt, false, true)) {
      if (row.status != "Running") continue;
      for (const auto& p : row.placement) {
        bool ok = false;
        for (const auto& n : nodes)
          if (n.name == p.value("node", "")) {
            ok = true;
            for (const auto& g : p["gpus"]) ok = ok && g.get<int>() < n.gpus;
          }
        if (!ok)
          throw Error("running job " + row.project + "/" + row.name + " uses node " + p.value("node", "") +
                      " GPUs that the new node list removes; delete or wait for it first");
      }
    }
    db_.exec("DELETE FROM nodes");
    for (const auto& n : nodes)
      db_.prepare("INSERT INTO nodes(name, gpus) VALUES(?1, ?2)").bind(1, n.name).bind(2, static_cast<int64_t>(n.gpus)).run();
    tx.commit();
  }
  reschedule();
}

std::vector<NodeStatus> LocalBackend::list_nodes() {
  ReadTransaction tx(db_);
  bool declared = false;
  std::vector<NodeStatus> out;
  for (const auto& n : effective_nodes(db_, &declared)) out.push_back({n, 0, {}, declared});
  for (const auto& row : load_job_rows(db_, std::nullopt, false, true)) {
    if (row.status != "Running") continue;
    for (const auto& p : row.placement)
      for (auto& n : out)
        if (n.spec.name == p.value("node", "")) {
          n.gpus_allocated += p.value("share", 1.0) * static_cast<double>(p["gpus"].size());
          std::string id = row.project + "/" + row.name;
          if (n.jobs.empty() || n.jobs.back() != id) n.jobs.push_back(id);
        }
  }
  return out;
}

>>>>>>> loops
}  // namespace lane::submit::local
