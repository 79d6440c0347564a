#include "submit/kube/kube_jobs.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/list_page_parse.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {
namespace {

using lane::kube::ListOptions;
namespace res = lane::kube::resources;

// All pages of a workload collection that `selector` picks, as summaries (no JSON trees: list
// reads few fields).
void list_workloads(lane::kube::KubeClient& client, const lane::kube::Resource& r, const std::string& ns,
                    const std::string& selector, std::vector<WorkloadSummary>& out) {
  ListOptions o;
  o.label_selector = selector;
  client.list_pages(
      r, ns, o, [&](const std::string& body) { return parse_workload_page(body, r.kind, out); }, [&] { out.clear(); });
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
void list_pytorchjobs(lane::kube::KubeClient& client, const std::string& ns, const std::string& selector,
                      std::vector<WorkloadSummary>& out) {
  try {
    list_workloads(client, res::kPyTorchJob, ns, selector, out);
  } catch (const lane::kube::ApiError& e) {
    if (!e.not_found()) throw;
    out.clear();
  }
}

}  // namespace

std::vector<JobInfo> KubeJobs::jobs_in(const std::string& ns, const std::string& selector) {
  // The lists (MPIJobs, PyTorchJobs, Jobs, Pods) parsed into summaries and joined in memory.
  std::vector<WorkloadSummary> mpijobs, pytorchjobs, jobs;
  std::vector<PodSummary> pods;
  list_workloads(*ctx_.client, res::kMpiJob, ns, selector, mpijobs);
  list_pytorchjobs(*ctx_.client, ns, selector, pytorchjobs);
  list_workloads(*ctx_.client, res::kJob, ns, selector, jobs);
  // Only workload pods (the ones jobs_from_summaries can place), as two disjoint server-side
  // selections: Kubeflow pods (MPI and PyTorch), then Job pods without that label.
  list_pods(*ctx_.client, ns, kMpiJobNameLabel, pods);
  list_pods(*ctx_.client, ns, fmt::format("job-name,!{}", kMpiJobNameLabel), pods);
  std::vector<const WorkloadSummary*> workloads;
  for (const auto* list : {&mpijobs, &pytorchjobs, &jobs})
    for (const auto& w : *list) workloads.push_back(&w);
  std::vector<const PodSummary*> pod_ptrs;
  for (const auto& p : pods) pod_ptrs.push_back(&p);
  return jobs_from_summaries(ctx_.settings, workloads, pod_ptrs);
}

std::set<std::string> KubeJobs::project_namespaces() {
  ListOptions o;
  o.label_selector = ctx_.settings.project_label;
  std::set<std::string> out;
  for (const auto& n : ctx_.client->list(res::kNamespace, "", o).items) out.insert(text(n["metadata"], "name"));
  return out;
}

void KubeJobs::finish_list(const std::optional<std::string>& project, const std::set<std::string>& project_ns,
                           std::vector<JobInfo>& jobs, bool fill_urls) {
  if (!project) {
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [&](const JobInfo& j) { return !project_ns.count(ctx_.ns_of(j.spec.project)); }),
               jobs.end());
  }
  if (fill_urls) fill_service_urls(project ? ctx_.ns_of(*project) : "", jobs);
  std::sort(jobs.begin(), jobs.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.spec.project != b.spec.project ? a.spec.project < b.spec.project : a.spec.name < b.spec.name;
  });
}

std::vector<JobInfo> KubeJobs::list_jobs(const std::optional<std::string>& project) {
  return select_jobs(project, LabelSelector(""));
}

std::vector<JobInfo> KubeJobs::select_jobs(const std::optional<std::string>& project, const LabelSelector& selector) {
  // All projects: the namespaces labelled as projects, their jobs listed cluster-wide in one go.
  const auto project_ns = project ? std::set<std::string>{} : project_namespaces();
  auto out = jobs_in(project ? ctx_.ns_of(*project) : "", selector.text());
  finish_list(project, project_ns, out);
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
