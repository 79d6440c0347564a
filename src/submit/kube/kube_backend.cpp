#include "submit/kube/kube_backend.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "storage/kube/csi_snapshot_store.h"
#include "submit/core/errors.h"
#include "submit/kube/job_state.h"
#include "submit/kube/list_page_parse.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {
namespace {

using lane::kube::ApiError;
using lane::kube::ListOptions;
namespace res = lane::kube::resources;

std::string text(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

using PodsByJob = std::unordered_map<std::string, std::vector<const PodSummary*>>;

// Pods grouped by the workload that owns them: batch Job pods carry job-name=<job>,
// MPI pods training.kubeflow.org/job-name=<job>. Hashed by "<namespace>/<job>".
PodsByJob pods_by_job(const std::vector<PodSummary>& pods) {
  PodsByJob by;
  by.reserve(pods.size());
  std::string key;
  for (const auto& p : pods) {
    const std::string& job = p.mpi_job_name.empty() ? p.job_name : p.mpi_job_name;
    if (job.empty()) continue;
    key.assign(p.ns).append("/").append(job);
    by[key].push_back(&p);
  }
  return by;
}

// All pages of a workload collection, as summaries (no JSON trees: list reads few fields).
void list_workloads(lane::kube::KubeClient& client, const lane::kube::Resource& r, const std::string& ns,
                    std::vector<WorkloadSummary>& out) {
  client.list_pages(
      r, ns, ListOptions{},
      [&](const std::string& body) { return parse_workload_page(body, r.kind, out); }, [&] { out.clear(); });
}

// All pages of the pods matching `selector`, appended to `out` as summaries.
void list_pods(lane::kube::KubeClient& client, const std::string& ns, const std::string& selector,
               std::vector<PodSummary>& out) {
  ListOptions o;
  o.label_selector = selector;
  const size_t first = out.size();
  client.list_pages(
      res::kPod, ns, o, [&](const std::string& body) { return parse_pod_page(body, out); },
      [&] { out.erase(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()); });
}

// MPI launcher Jobs are created by the operator and owned by the MPIJob: not jobs of their own.
bool owned_by_mpijob(const Json& job) {
  for (const auto& o : object_field(job["metadata"], "ownerReferences")) {
    if (text(o, "kind") == "MPIJob") return true;
  }
  return false;
}

}  // namespace

KubeBackend::KubeBackend(std::shared_ptr<lane::kube::KubeClient> client, KubeSettings settings,
                         std::string default_project)
    : client_(std::move(client)), settings_(std::move(settings)), default_project_(std::move(default_project)) {}

KubeBackend::~KubeBackend() = default;

std::string KubeBackend::ns_of(const std::string& project) const { return project_namespace(settings_, project); }

void KubeBackend::require_project(const std::string& project) {
  if (!project_exists(project)) {
    throw UsageError(fmt::format("project {} was not found (no namespace {} labelled {}={}); create it with "
                                 "'lanectl project create {} --gpu-quota N' or list them with 'lanectl project list'",
                                 project, ns_of(project), settings_.project_label, project, project));
  }
}

nlohmann::json KubeBackend::render(const JobSpec& spec) {
  Json list{{"apiVersion", "v1"}, {"kind", "List"}, {"items", Json::array()}};
  for (auto& obj : render_job(settings_, spec)) list["items"].push_back(std::move(obj));
  return list;
}

std::optional<Json> KubeBackend::find_workload(const std::string& ns, const std::string& name) {
  if (auto m = client_->try_get(res::kMpiJob, ns, name)) return m;
  if (auto j = client_->try_get(res::kJob, ns, name)) {
    if (!owned_by_mpijob(*j)) return j;
  }
  return std::nullopt;
}

JobInfo KubeBackend::submit(const JobSpec& spec) {
  auto objects = render_job(settings_, spec);  // validates first: nothing is created on bad input
  require_project(spec.project);
  const std::string ns = ns_of(spec.project);
  if (find_workload(ns, spec.name)) throw job_name_taken(spec.name, spec.project);
  for (const auto& m : spec.pvcs) {
    if (!m.create && !client_->try_get(res::kPvc, ns, m.claim)) {
      throw UsageError(fmt::format("--pvc: claim '{}' does not exist in {}; create it first or use the "
                                   "StorageClass:Size:Path form",
                                   m.claim, ns));
    }
  }
  for (const auto& obj : objects) {
    std::string kind = obj.value("kind", "");
    const lane::kube::Resource& r = kind == "PersistentVolumeClaim" ? res::kPvc
                                    : kind == "MPIJob"              ? res::kMpiJob
                                    : kind == "Job"                 ? res::kJob
                                                                    : res::kService;
    try {
      client_->create_idempotent(r, ns, obj);
    } catch (const ApiError& e) {
      // A claim left by an earlier run of the same job is reused (runai behaves the same).
      if (e.already_exists() && kind == "PersistentVolumeClaim") continue;
      // 409 for the workload: another submission took the name since find_workload.
      if (e.already_exists() && (&r == &res::kJob || &r == &res::kMpiJob)) throw job_name_taken(spec.name, spec.project);
      throw;
    }
  }
  auto info = describe_job(spec.name, spec.project);
  if (!info) throw lane::Error(fmt::format("job '{}' was created but cannot be read back", spec.name));
  return *info;
}

std::string KubeBackend::next_job_name(const std::string& project, const std::string& prefix) {
  require_dns1123_label(prefix, "--job-name-prefix");
  std::set<std::string> taken;
  for (const auto& j : jobs_in(ns_of(project))) taken.insert(j.spec.name);
  for (int i = 1;; ++i) {
    std::string name = fmt::format("{}-{}", prefix, i);
    if (!taken.count(name)) return name;
  }
}

std::vector<JobInfo> KubeBackend::jobs_in(const std::string& ns) {
  // Three lists (MPIJobs, Jobs, Pods) parsed into summaries and joined in memory.
  std::vector<WorkloadSummary> mpijobs, jobs;
  std::vector<PodSummary> pods;
  list_workloads(*client_, res::kMpiJob, ns, mpijobs);
  list_workloads(*client_, res::kJob, ns, jobs);
  // Only workload pods (the ones pods_by_job can place), as two disjoint server-side selections:
  // MPI pods, then Job pods without the MPI label; other pods of the namespace never travel.
  list_pods(*client_, ns, kMpiJobNameLabel, pods);
  list_pods(*client_, ns, fmt::format("job-name,!{}", kMpiJobNameLabel), pods);
  auto by = pods_by_job(pods);
  std::vector<JobInfo> out;
  out.reserve(mpijobs.size() + jobs.size());
  static const std::vector<const PodSummary*> kNone;
  std::string key;
  auto add = [&](const WorkloadSummary& w) {
    key.assign(w.ns).append("/").append(w.name);
    auto it = by.find(key);
    out.push_back(job_info_from_summaries(settings_, w, it == by.end() ? kNone : it->second));
  };
  for (const auto& m : mpijobs) add(m);
  // MPI launcher Jobs are created by the operator and owned by the MPIJob: not jobs of their own.
  for (const auto& j : jobs) {
    if (!j.owned_by_mpijob) add(j);
  }
  return out;
}

std::vector<JobInfo> KubeBackend::list_jobs(const std::optional<std::string>& project) {
  std::vector<JobInfo> out;
  if (project) {
    out = jobs_in(ns_of(*project));
  } else {
    // All projects: the namespaces labelled as projects, listed cluster-wide in one go.
    ListOptions o;
    o.label_selector = settings_.project_label;
    std::set<std::string> project_ns;
    for (const auto& n : client_->list(res::kNamespace, "", o).items) project_ns.insert(text(n["metadata"], "name"));
    for (auto& j : jobs_in("")) {
      if (project_ns.count(ns_of(j.spec.project))) out.push_back(std::move(j));
    }
  }
  std::sort(out.begin(), out.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.spec.project != b.spec.project ? a.spec.project < b.spec.project : a.spec.name < b.spec.name;
  });
  return out;
}

std::optional<JobInfo> KubeBackend::describe_job(const std::string& name, const std::string& project) {
  const std::string ns = ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return std::nullopt;
  bool mpi = text(*w, "kind") == "MPIJob";
  ListOptions o;
  o.label_selector = mpi ? std::string(kMpiJobNameLabel) + "=" + name : "job-name=" + name;
  auto pods = client_->list(res::kPod, ns, o);
  std::vector<const Json*> pod_ptrs;
  for (const auto& p : pods.items) pod_ptrs.push_back(&p);
  JobInfo info = job_info_from_objects(settings_, *w, pod_ptrs);
  // Events of the workload and of each of its pods (involvedObject.uid field selector).
  std::vector<Json> events;
  std::vector<std::string> uids{text((*w)["metadata"], "uid")};
  for (const auto& p : pods.items) uids.push_back(text(p["metadata"], "uid"));
  for (const auto& uid : uids) {
    if (uid.empty()) continue;
    ListOptions eo;
    eo.field_selector = "involvedObject.uid=" + uid;
    for (auto& e : client_->list(res::kEvent, ns, eo).items) events.push_back(std::move(e));
  }
  info.events = events_from_objects(events);
  // MPIJob conditions are the operator's account of the job; show them as events too.
  if (w->contains("status") && (*w)["status"].contains("conditions")) {
    for (const auto& c : (*w)["status"]["conditions"]) {
      JobEvent je;
      je.time_unix_ms = parse_time_ms(text(c, "lastTransitionTime"));
      je.source = std::string(mpi ? "mpijob/" : "job/") + name;
      je.type = text(c, "status") == "True" ? "Normal" : "Warning";
      je.reason = text(c, "type") + (text(c, "reason").empty() ? "" : "/" + text(c, "reason"));
      je.message = text(c, "message");
      info.events.push_back(je);
    }
    std::stable_sort(info.events.begin(), info.events.end(),
                     [](const JobEvent& a, const JobEvent& b) { return a.time_unix_ms < b.time_unix_ms; });
  }
  return info;
}

std::string KubeBackend::chief_pod(const std::string& ns, const Json& w) {
  std::string name = text(w["metadata"], "name");
  bool mpi = text(w, "kind") == "MPIJob";
  ListOptions o;
  o.label_selector = mpi ? fmt::format("{}={},{}=launcher", kMpiJobNameLabel, name, kMpiJobRoleLabel)
                         : "job-name=" + name;
  auto pods = client_->list(res::kPod, ns, o).items;
  if (pods.empty()) {
    throw lane::Error(fmt::format("job '{}' has no {} yet; see 'lanectl describe job {}'", name,
                                  mpi ? "launcher pod" : "pod", name));
  }
  // The newest pod: after restarts the old ones only hold stale logs.
  std::sort(pods.begin(), pods.end(), [](const Json& a, const Json& b) {
    return text(a["metadata"], "creationTimestamp") > text(b["metadata"], "creationTimestamp");
  });
  return text(pods.front()["metadata"], "name");
}

void KubeBackend::stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                              std::ostream& out) {
  const std::string ns = ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) throw lane::Error(fmt::format("job '{}' does not exist in project {}", name, project));
  std::string pod = opts.pod.empty() ? chief_pod(ns, *w) : opts.pod;
  lane::kube::LogOptions lo;
  lo.follow = opts.follow;
  if (opts.tail >= 0) lo.tail_lines = opts.tail;
  if (opts.since_seconds > 0) lo.since_seconds = opts.since_seconds;
  lo.timestamps = opts.timestamps;
  client_->stream_logs(ns, pod, lo, [&](std::string_view chunk) {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    out.flush();
  });
}

bool KubeBackend::delete_job(const std::string& name, const std::string& project) {
  const std::string ns = ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return false;
  const auto& r = text(*w, "kind") == "MPIJob" ? res::kMpiJob : res::kJob;
  try {
    client_->remove(r, ns, name, settings_.delete_propagation);
  } catch (const ApiError& e) {
    if (e.not_found()) return false;
    throw;
  }
  // The Service made for --port belongs to the job; claims stay (they hold the data).
  if (auto svc = client_->try_get(res::kService, ns, name)) {
    auto labels = (*svc)["metadata"].value("labels", Json::object());
    if (text(labels, kJobLabel) == name) {
      try {
        client_->remove(res::kService, ns, name, "Background");
      } catch (const ApiError& e) {
        if (!e.not_found()) throw;
      }
    }
  }
  return true;
}

std::vector<std::string> KubeBackend::delete_all_jobs(const std::string& project) {
  std::vector<std::string> names;
  for (const auto& j : jobs_in(ns_of(project))) {
    if (delete_job(j.spec.name, project)) names.push_back(j.spec.name);
  }
  return names;
}

int KubeBackend::exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
                      bool tty, const std::string& pod) {
  const std::string ns = ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) throw lane::Error(fmt::format("job '{}' does not exist in project {}", name, project));
  const std::string target = pod.empty() ? chief_pod(ns, *w) : pod;
  auto is_running = [](const Json& p) { return text(p["status"], "phase") == "Running"; };
  auto now = client_->try_get(res::kPod, ns, target);
  if (!now) throw lane::Error(fmt::format("pod {} of job '{}' does not exist in {}", target, name, ns));
  // As `runai bash`: a pod that is still starting gets up to 30 s to run.
  if (!is_running(*now) && !client_->wait_for(res::kPod, ns, target, is_running, std::chrono::seconds(30))) {
    now = client_->try_get(res::kPod, ns, target);
    throw lane::Error(fmt::format("pod {} of job '{}' is {} after 30 s; exec needs a Running pod (see "
                                  "'lanectl describe job {}')",
                                  target, name, now ? text((*now)["status"], "phase") : "gone", name));
  }
  lane::kube::PodExecRequest request;
  request.ns = ns;
  request.pod = target;
  request.command = argv;
  request.tty = tty;
  request.stdin = tty || !::isatty(STDIN_FILENO);  // -i is implied by a pipe or a file on stdin
  auto unbuffered = [](std::FILE* stream) {
    return [stream](std::string_view d) {
      std::fwrite(d.data(), 1, d.size(), stream);
      std::fflush(stream);
    };
  };
  lane::kube::PodExecIo io;
  io.in_fd = STDIN_FILENO;
  io.out = unbuffered(stdout);
  io.err = unbuffered(stderr);
  return client_->exec(request, io);
}

void KubeBackend::create_project(const ProjectSpec& spec) {
  require_dns1123_label(spec.name, "project name");
  require_dns1123_label(ns_of(spec.name), "project namespace");
  if (!(spec.gpu_quota >= 0)) throw UsageError("--gpu-quota must be 0 or more");
  try {
    client_->create_idempotent(res::kNamespace, "", namespace_object(settings_, spec.name));
  } catch (const ApiError& e) {
    if (!e.already_exists()) throw;
    // An existing namespace (e.g. made by hand) becomes the project: add the labels.
    client_->merge_patch(res::kNamespace, "", ns_of(spec.name),
                         {{"metadata", namespace_object(settings_, spec.name)["metadata"]}});
  }
  try {
    client_->create_idempotent(res::kQueue, "", queue_object(settings_, spec));
  } catch (const ApiError& e) {
    if (!e.already_exists()) throw;
    throw UsageError(fmt::format("project {} already exists; change its quota with 'lanectl project set-quota'",
                                 spec.name));
  }
}

std::vector<ProjectStatus> KubeBackend::list_projects() {
  ListOptions o;
  o.label_selector = settings_.project_label;
  std::map<std::string, Json> queues;
  for (auto& q : client_->list(res::kQueue, "").items) {
    std::string name = text(q["metadata"], "name");  // before the move (json's operator= takes by value)
    queues[name] = std::move(q);
  }
  std::map<std::string, ProjectStatus> by;
  for (const auto& n : client_->list(res::kNamespace, "", o).items) {
    std::string p = text(n["metadata"].value("labels", Json::object()), settings_.project_label.c_str());
    ProjectStatus ps;
    ps.spec.name = p;
    if (auto it = queues.find(p); it != queues.end()) {
      auto gpu = it->second["spec"].value("resources", Json::object()).value("gpu", Json::object());
      ps.spec.gpu_quota = gpu.value("quota", 0.0);
      ps.spec.over_quota = gpu.value("limit", -1.0) < 0 || gpu.value("limit", 0.0) > ps.spec.gpu_quota;
    } else {
      ps.explanation.push_back("no KAI queue named " + p + ": jobs fall back to the default queue");
    }
    by[p] = ps;
  }
  for (const auto& j : list_jobs(std::nullopt)) {
    auto it = by.find(j.spec.project);
    if (it == by.end()) continue;
    it->second.gpus_allocated += j.gpus_allocated;
    if (j.status == JobStatus::kRunning) ++it->second.running_jobs;
    if (j.status == JobStatus::kPending) ++it->second.pending_jobs;
    if (j.status == JobStatus::kRunning || j.status == JobStatus::kPending) {
      it->second.gpus_requested += j.spec.total_gpus();
    }
  }
  std::vector<ProjectStatus> out;
  for (auto& [_, ps] : by) out.push_back(std::move(ps));
  return out;
}

bool KubeBackend::project_exists(const std::string& name) {
  if (!is_dns1123_label(name)) return false;
  auto n = client_->try_get(res::kNamespace, "", ns_of(name));
  if (!n) return false;
  return text((*n)["metadata"].value("labels", Json::object()), settings_.project_label.c_str()) == name;
}

void KubeBackend::delete_project(const std::string& name) {
  require_project(name);
  auto jobs = jobs_in(ns_of(name));
  if (!jobs.empty()) {
    throw lane::Error(fmt::format("project {} still has {} job(s); delete them first ('lanectl delete --all -p {}')",
                                  name, jobs.size(), name));
  }
  try {
    client_->remove(res::kQueue, "", name, "Background");
  } catch (const ApiError& e) {
    if (!e.not_found()) throw;
  }
  client_->remove(res::kNamespace, "", ns_of(name), "Background");
}

void KubeBackend::set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) {
  require_project(name);
  if (!(gpu_quota >= 0)) throw UsageError("--gpu-quota must be 0 or more");
  auto q = client_->try_get(res::kQueue, "", name);
  bool oq = over_quota.value_or(true);
  if (!over_quota && q) {
    double limit = (*q)["spec"].value("resources", Json::object()).value("gpu", Json::object()).value("limit", -1.0);
    oq = limit < 0;
  }
  ProjectSpec spec{name, gpu_quota, oq};
  if (!q) {
    client_->create_idempotent(res::kQueue, "", queue_object(settings_, spec));
    return;
  }
  client_->merge_patch(res::kQueue, "", name, {{"spec", {{"resources", queue_object(settings_, spec)["spec"]["resources"]}}}});
}

void KubeBackend::set_nodes(const std::vector<NodeSpec>&) {
  throw UsageError("on Kubernetes the nodes come from the cluster (AKS node pools); 'cluster set-nodes' applies to "
                   "the local backend only");
}

std::vector<NodeStatus> KubeBackend::list_nodes() {
  std::map<std::string, NodeStatus> by;
  for (const auto& n : client_->list(res::kNode, "").items) {
    NodeStatus ns;
    ns.spec.name = text(n["metadata"], "name");
    auto alloc = n.value("status", Json::object()).value("allocatable", Json::object());
    std::string g = text(alloc, "nvidia.com/gpu");
    ns.spec.gpus = g.empty() ? 0 : std::stoi(g);
    by[ns.spec.name] = ns;
  }
  ListOptions o;
  o.field_selector = "status.phase=Running";
  for (const auto& p : client_->list(res::kPod, "", o).items) {
    auto it = by.find(text(p["spec"], "nodeName"));
    if (it == by.end()) continue;
    double g = pod_gpus(p);
    if (g <= 0) continue;
    it->second.gpus_allocated += g;
    auto labels = p["metadata"].value("labels", Json::object());
    std::string job = text(labels, kJobLabel);
    if (!job.empty()) {
      std::string entry = text(labels, kProjectLabel) + "/" + job;
      auto& jobs = it->second.jobs;
      if (std::find(jobs.begin(), jobs.end(), entry) == jobs.end()) jobs.push_back(entry);
    }
  }
  std::vector<NodeStatus> out;
  for (auto& [_, n] : by) out.push_back(std::move(n));
  return out;
}

std::string KubeBackend::storage_namespace() {
  if (!default_project_.empty()) return ns_of(default_project_);
  return client_->default_namespace();
}

storage::Volumes& KubeBackend::volumes() {
  if (!volumes_) {
    volumes_ = std::make_unique<storage::kube::PvcVolumes>(client_, storage_namespace(), settings_.pvc_access_mode);
  }
  return *volumes_;
}

std::unique_ptr<storage::SnapshotStore> KubeBackend::make_snapshot_store(const std::string& ns) {
  storage::kube::CsiSnapshotOptions o;
  o.ns = ns;
  o.snapshot_class = settings_.snapshot_class;
  o.restore_access_mode = settings_.pvc_access_mode;
  o.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  return std::make_unique<storage::kube::CsiSnapshotStore>(client_, o);
}

storage::SnapshotStore& KubeBackend::snapshots() {
  if (!snapshots_) snapshots_ = make_snapshot_store(storage_namespace());
  return *snapshots_;
}

storage::SnapshotStore& KubeBackend::snapshots_of(const std::string& project) {
  if (project.empty()) return snapshots();
  const std::string ns = ns_of(project);
  auto& store = project_snapshots_[ns];
  if (!store) store = make_snapshot_store(ns);
  return *store;
}

std::unique_ptr<Backend> open_kube_backend(const std::string& default_project) {
  auto client = std::make_shared<lane::kube::KubeClient>(lane::kube::load_default_connection());
  return std::make_unique<KubeBackend>(client, settings_from_env(), default_project);
}

}  // namespace lane::submit::kube
