#include "submit/kube/kube_jobs.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/list_page_parse.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {
namespace {

using lane::kube::ListOptions;
namespace res = lane::kube::resources;

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

// PyTorchJobs, where the cluster has the training operator's CRD (404 without it: none).
void list_pytorchjobs(lane::kube::KubeClient& client, const std::string& ns, std::vector<WorkloadSummary>& out) {
  try {
    list_workloads(client, res::kPyTorchJob, ns, out);
  } catch (const lane::kube::ApiError& e) {
    if (!e.not_found()) throw;
    out.clear();
  }
}

}  // namespace

std::vector<JobInfo> KubeJobs::jobs_in(const std::string& ns) {
  // The lists (MPIJobs, PyTorchJobs, Jobs, Pods) parsed into summaries and joined in memory.
  std::vector<WorkloadSummary> mpijobs, pytorchjobs, jobs;
  std::vector<PodSummary> pods;
  list_workloads(*ctx_.client, res::kMpiJob, ns, mpijobs);
  list_pytorchjobs(*ctx_.client, ns, pytorchjobs);
  list_workloads(*ctx_.client, res::kJob, ns, jobs);
  // Only workload pods (the ones pods_by_job can place), as two disjoint server-side selections:
  // Kubeflow pods (MPI and PyTorch), then Job pods without that label; other pods never travel.
  list_pods(*ctx_.client, ns, kMpiJobNameLabel, pods);
  list_pods(*ctx_.client, ns, fmt::format("job-name,!{}", kMpiJobNameLabel), pods);
  auto by = pods_by_job(pods);
  std::vector<JobInfo> out;
  out.reserve(mpijobs.size() + pytorchjobs.size() + jobs.size());
  static const std::vector<const PodSummary*> kNone;
  std::string key;
  auto add = [&](const WorkloadSummary& w) {
    key.assign(w.ns).append("/").append(w.name);
    auto it = by.find(key);
    out.push_back(job_info_from_summaries(ctx_.settings, w, it == by.end() ? kNone : it->second));
  };
  for (const auto& m : mpijobs) add(m);
  for (const auto& p : pytorchjobs) add(p);
  // MPI launcher Jobs are created by the operator and owned by the MPIJob: not jobs of their own.
  for (const auto& j : jobs) {
    if (!j.owned_by_mpijob) add(j);
  }
  return out;
}

std::vector<JobInfo> KubeJobs::list_jobs(const std::optional<std::string>& project) {
  std::vector<JobInfo> out;
  if (project) {
    out = jobs_in(ctx_.ns_of(*project));
  } else {
    // All projects: the namespaces labelled as projects, listed cluster-wide in one go.
    ListOptions o;
    o.label_selector = ctx_.settings.project_label;
    std::set<std::string> project_ns;
    for (const auto& n : ctx_.client->list(res::kNamespace, "", o).items) project_ns.insert(text(n["metadata"], "name"));
    for (auto& j : jobs_in("")) {
      if (project_ns.count(ctx_.ns_of(j.spec.project))) out.push_back(std::move(j));
    }
  }
  fill_service_urls(project ? ctx_.ns_of(*project) : "", out);
  std::sort(out.begin(), out.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.spec.project != b.spec.project ? a.spec.project < b.spec.project : a.spec.name < b.spec.name;
  });
  return out;
}

std::optional<JobInfo> KubeJobs::describe_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return std::nullopt;
  const std::string kind = text(*w, "kind");
  const bool kubeflow = kind != kJobKind;  // MPIJob, PyTorchJob: the operators' job-name label
  ListOptions o;
  o.label_selector = kubeflow ? std::string(kMpiJobNameLabel) + "=" + name : "job-name=" + name;
  auto pods = ctx_.client->list(res::kPod, ns, o);
  std::vector<const Json*> pod_ptrs;
  for (const auto& p : pods.items) pod_ptrs.push_back(&p);
  JobInfo info = job_info_from_objects(ctx_.settings, *w, pod_ptrs);
  // Events of the workload and of each of its pods (involvedObject.uid field selector).
  std::vector<Json> events;
  std::vector<std::string> uids{text((*w)["metadata"], "uid")};
  for (const auto& p : pods.items) uids.push_back(text(p["metadata"], "uid"));
  for (const auto& uid : uids) {
    if (uid.empty()) continue;
    ListOptions eo;
    eo.field_selector = "involvedObject.uid=" + uid;
    for (auto& e : ctx_.client->list(res::kEvent, ns, eo).items) events.push_back(std::move(e));
  }
  info.events = events_from_objects(events);
  // The workload's conditions are its controller's account of the job; show them as events too.
  if (w->contains("status") && (*w)["status"].contains("conditions")) {
    for (const auto& c : (*w)["status"]["conditions"]) {
      JobEvent je;
      je.time_unix_ms = parse_time_ms(text(c, "lastTransitionTime"));
      je.source = lower_kind(kind) + "/" + name;
      je.type = text(c, "status") == "True" ? "Normal" : "Warning";
      je.reason = text(c, "type") + (text(c, "reason").empty() ? "" : "/" + text(c, "reason"));
      je.message = text(c, "message");
      info.events.push_back(je);
    }
    std::stable_sort(info.events.begin(), info.events.end(),
                     [](const JobEvent& a, const JobEvent& b) { return a.time_unix_ms < b.time_unix_ms; });
  }
  std::vector<JobInfo> one{std::move(info)};
  fill_service_urls(ns, one);
  return std::move(one.front());
}

}  // namespace lane::submit::kube
