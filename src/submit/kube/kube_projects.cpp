#include "submit/kube/kube_projects.h"

#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/core/validate.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

using lane::kube::ApiError;
using lane::kube::ListOptions;
namespace res = lane::kube::resources;

void KubeProjects::create_project(const ProjectSpec& spec) {
  validate_project_name(spec.name, "project name");
  require_dns1123_label(ctx_.ns_of(spec.name), "project namespace");  // LANECTL_NAMESPACE_PREFIX may be longer
  validate_gpu_quota(spec.gpu_quota);
  if (spec.allow_host_network) Projects::set_project_host_network(spec.name, true);  // refused: not a cluster setting
  try {
    ctx_.client->create_idempotent(res::kNamespace, "", namespace_object(ctx_.settings, spec.name));
  } catch (const ApiError& e) {
    if (!e.already_exists()) throw;
    // An existing namespace (e.g. made by hand) becomes the project: add the labels.
    ctx_.client->merge_patch(res::kNamespace, "", ctx_.ns_of(spec.name),
                             {{"metadata", namespace_object(ctx_.settings, spec.name)["metadata"]}});
  }
  try {
    ctx_.client->create_idempotent(res::kQueue, "", queue_object(ctx_.settings, spec));
  } catch (const ApiError& e) {
    if (!e.already_exists()) throw;
    throw UsageError(fmt::format("project {} already exists; change its quota with 'lanectl project set-quota'",
                                 spec.name));
  }
}

std::vector<ProjectStatus> KubeProjects::list_projects() {
  ListOptions o;
  o.label_selector = ctx_.settings.project_label;
  std::map<std::string, Json> queues;
  for (auto& q : ctx_.client->list(res::kQueue, "").items) {
    std::string name = text(q["metadata"], "name");  // before the move (json's operator= takes by value)
    queues[name] = std::move(q);
  }
  std::map<std::string, ProjectStatus> by;
  for (const auto& n : ctx_.client->list(res::kNamespace, "", o).items) {
    std::string p = text(n["metadata"].value("labels", Json::object()), ctx_.settings.project_label.c_str());
    ProjectStatus ps;
    ps.spec.name = p;
    ps.fair_share_known = false;  // KAI divides the cluster in the cluster; its queues do not publish it
    if (auto it = queues.find(p); it != queues.end()) {
      auto gpu = it->second["spec"].value("resources", Json::object()).value("gpu", Json::object());
      ps.spec.gpu_quota = gpu.value("quota", 0.0);
      ps.spec.over_quota = gpu.value("limit", -1.0) < 0 || gpu.value("limit", 0.0) > ps.spec.gpu_quota;
    } else {
      ps.explanation.push_back("no KAI queue named " + p + ": jobs fall back to the default queue");
    }
    by[p] = ps;
  }
  for (const auto& j : jobs_.list_jobs(std::nullopt)) {
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

bool KubeProjects::project_exists(const std::string& name) { return ctx_.project_exists(name); }

void KubeProjects::delete_project(const std::string& name) {
  ctx_.require_project(name);
  auto jobs = jobs_.jobs_in(ctx_.ns_of(name));
  if (!jobs.empty()) {
    throw lane::Error(fmt::format("project {} still has {} job(s); delete them first ('lanectl delete --all -p {}')",
                                  name, jobs.size(), name));
  }
  try {
    ctx_.client->remove(res::kQueue, "", name, "Background");
  } catch (const ApiError& e) {
    if (!e.not_found()) throw;
  }
  ctx_.client->remove(res::kNamespace, "", ctx_.ns_of(name), "Background");
}

void KubeProjects::set_project_quota(const std::string& name, double gpu_quota, std::optional<bool> over_quota) {
  ctx_.require_project(name);
  validate_gpu_quota(gpu_quota);
  auto q = ctx_.client->try_get(res::kQueue, "", name);
  bool oq = over_quota.value_or(true);
  if (!over_quota && q) {
    double limit = (*q)["spec"].value("resources", Json::object()).value("gpu", Json::object()).value("limit", -1.0);
    oq = limit < 0;
  }
  ProjectSpec spec{name, gpu_quota, oq};
  if (!q) {
    ctx_.client->create_idempotent(res::kQueue, "", queue_object(ctx_.settings, spec));
    return;
  }
  ctx_.client->merge_patch(res::kQueue, "", name, {{"spec", {{"resources", queue_object(ctx_.settings, spec)["spec"]["resources"]}}}});
}

}  // namespace lane::submit::kube
