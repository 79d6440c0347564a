#include "submit/kube/kube_jobs.h"

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/core/errors.h"
#include "submit/core/validate.h"
#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {
namespace {

using lane::kube::ApiError;
namespace res = lane::kube::resources;

}  // namespace

const lane::kube::Resource& workload_resource(const std::string& kind) {
  return kind == kMpiJobKind ? res::kMpiJob : kind == kPyTorchJobKind ? res::kPyTorchJob : res::kJob;
}

std::string lower_kind(std::string kind) {
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kind;
}

namespace {

// MPI launcher Jobs are created by the operator and owned by the MPIJob: not jobs of their own.
bool owned_by_mpijob(const Json& job) {
  for (const auto& o : object_field(job["metadata"], "ownerReferences")) {
    if (text(o, "kind") == "MPIJob") return true;
  }
  return false;
}

}  // namespace

nlohmann::json KubeJobs::render(const JobSpec& spec) {
  Json list{{"apiVersion", "v1"}, {"kind", "List"}, {"items", Json::array()}};
  for (auto& obj : render_job(ctx_.settings, spec)) list["items"].push_back(std::move(obj));
  return list;
}

std::optional<Json> KubeJobs::find_workload(const std::string& ns, const std::string& name) {
  if (auto m = ctx_.client->try_get(res::kMpiJob, ns, name)) return m;
  if (auto p = ctx_.client->try_get(res::kPyTorchJob, ns, name)) return p;
  if (auto j = ctx_.client->try_get(res::kJob, ns, name)) {
    if (!owned_by_mpijob(*j)) return j;
  }
  return std::nullopt;
}

void KubeJobs::await_deletion(const std::string& ns, const Json& workload, const std::string& project) {
  const std::string name = text(workload["metadata"], "name");
  const lane::kube::Resource& r = workload_resource(text(workload, "kind"));
  const auto seconds = ctx_.settings.deletion_wait.count();
  ctx_.note(fmt::format("job '{}' in project {} is being deleted (since {}); waiting up to {}s for it to go",
                        name, project, text(workload["metadata"], "deletionTimestamp"), seconds));
  if (ctx_.client->wait_gone(r, ns, name, ctx_.settings.deletion_wait)) return;
  throw AlreadyExists(fmt::format(
      "job '{}' in project {} is still being deleted after {}s (its pods are terminating or a finalizer holds "
      "it: see 'kubectl get {} {} -n {} -o yaml'); submit again once 'lanectl list -p {}' no longer shows it, "
      "choose another --name, or wait longer with LANECTL_DELETION_WAIT_SECONDS",
      name, project, seconds, lower_kind(r.kind), name, ns, project));
}

void KubeJobs::check_claims(const std::string& ns, const JobSpec& spec, const std::vector<Json>& objects) {
  // A claim being deleted stays while a pod mounts it (kubernetes.io/pvc-protection); a new job's
  // pods could never start on it.
  auto refuse_if_going = [&](const Json& claim) {
    if (!object_field(claim, "metadata").contains("deletionTimestamp")) return;
    const std::string name = text(claim["metadata"], "name");
    throw UsageError(fmt::format("--pvc: claim '{}' in {} is being deleted (a pod still mounts it, or a finalizer "
                                 "holds it); submit once 'kubectl get pvc {} -n {}' no longer finds it, or use "
                                 "another claim",
                                 name, ns, name, ns));
  };
  for (const auto& m : spec.pvcs) {
    if (m.create) continue;
    auto claim = ctx_.client->try_get(res::kPvc, ns, m.claim);
    if (!claim) {
      throw UsageError(m.must_exist ? fmt::format("--existing-pvc claimname={}: claim '{}' does not exist in {}; "
                                                  "create it first or let the job create it with --new-pvc "
                                                  "claimname={},size=SIZE,path={}",
                                                  m.claim, m.claim, ns, m.claim, m.mount_path)
                                    : fmt::format("--pvc: claim '{}' does not exist in {}; create it first or use "
                                                  "the StorageClass:Size:Path form",
                                                  m.claim, ns));
    }
    refuse_if_going(*claim);
  }
  for (const auto& obj : objects) {  // claims the job creates, unless an earlier run left them
    if (text(obj, "kind") != "PersistentVolumeClaim") continue;
    if (auto left = ctx_.client->try_get(res::kPvc, ns, text(obj["metadata"], "name"))) refuse_if_going(*left);
  }
}

JobInfo KubeJobs::submit(const JobSpec& spec) {
  auto objects = render_job(ctx_.settings, spec);  // validates first: nothing is created on bad input
  ctx_.require_project(spec.project);
  const std::string ns = ctx_.ns_of(spec.project);
  if (auto existing = find_workload(ns, spec.name)) {
    // The seed deletes a job and submits it again under the same name: wait for the deletion.
    const bool being_deleted = object_field(*existing, "metadata").contains("deletionTimestamp");
    if (!being_deleted) throw job_name_taken(spec.name, spec.project);
    await_deletion(ns, *existing, spec.project);
  }
  check_claims(ns, spec, objects);
  // What this submission created besides claims, removed again if a later object fails (a
  // Service whose nodePort is taken, one the account may not create): a failed submit leaves no
  // job behind that would take its name. Claims stay: a new submission reuses them.
  Submitted done{ns, spec.name, spec.project, lane::kube::KubeClient::new_submission_id(), {}};
  for (const auto& obj : objects) {
    std::string kind = obj.value("kind", "");
    const lane::kube::Resource& r = kind == "PersistentVolumeClaim" ? res::kPvc
                                    : kind == kIngressKind          ? res::kIngress
                                    : kind == "Service"             ? res::kService
                                                                    : workload_resource(kind);
    const std::string name = text(obj["metadata"], "name");
    // What the rollback looks for when this create gets no definite answer (claims stay anyway).
    const auto unanswered = &r == &res::kPvc ? std::nullopt : std::make_optional(std::make_pair(&r, name));
    try {
      ctx_.client->create_idempotent(r, ns, obj, done.id);
      if (&r != &res::kPvc) done.created.emplace_back(&r, name);
    } catch (const ApiError& e) {
      // A claim left by an earlier run of the same job is reused (runai behaves the same).
      if (e.already_exists() && kind == "PersistentVolumeClaim") continue;
      // A 4xx answer is definite: the object was not made.
      roll_back(done, e.http_code() < 500 ? std::nullopt : unanswered);
      // 409 for the workload: another submission took the name since find_workload.
      if (e.already_exists() && &r == &workload_resource(kind)) throw job_name_taken(spec.name, spec.project);
      throw;
    } catch (const std::exception&) {
      // No answer (the API server unreachable while it may have made the object).
      roll_back(done, unanswered);
      throw;
    }
  }
  auto info = describe_job(spec.name, spec.project);
  if (!info) throw lane::Error(fmt::format("job '{}' was created but cannot be read back", spec.name));
  return *info;
}

void KubeJobs::roll_back(const Submitted& done,
                         const std::optional<std::pair<const lane::kube::Resource*, std::string>>& unanswered) {
  const std::string& job = done.job;
  if (unanswered) {
    const auto& [r, name] = *unanswered;
    try {
      if (ctx_.client->remove_if_submitted(*r, done.ns, name, done.id))
        ctx_.note(fmt::format("submit of job '{}' failed: removed the {} '{}' that its unanswered request had made",
                              job, r->kind, name));
    } catch (const std::exception& e) {
      ctx_.note(fmt::format("submit of job '{}' failed, and whether the API server made its {} '{}' is unknown: {}; "
                            "check with 'lanectl describe {} -p {}' and delete it with 'lanectl delete {} -p {}'",
                            job, r->kind, name, e.what(), job, done.project, job, done.project));
    }
  }
  for (auto it = done.created.rbegin(); it != done.created.rend(); ++it) {
    const auto& [r, name] = *it;
    try {
      ctx_.client->remove(*r, done.ns, name, "Background");
      ctx_.note(fmt::format("submit of job '{}' failed: removed the {} '{}' it had created", job, r->kind, name));
    } catch (const std::exception& e) {
      ctx_.note(fmt::format("submit of job '{}' failed, and the {} '{}' it had created could not be removed: {}; "
                            "delete it with 'lanectl delete {} -p {}'",
                            job, r->kind, name, e.what(), job, done.project));
    }
  }
}

std::string KubeJobs::next_job_name(const std::string& project, const std::string& prefix) {
  validate_job_name_prefix(prefix);
  std::set<std::string> taken;
  for (const auto& j : jobs_in(ctx_.ns_of(project))) taken.insert(j.spec.name);
  for (int i = 1;; ++i) {
    std::string name = fmt::format("{}-{}", prefix, i);
    if (!taken.count(name)) return name;
  }
}

bool KubeJobs::delete_job(const std::string& name, const std::string& project) {
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) return false;
  const auto& r = workload_resource(text(*w, "kind"));
  const bool ingress = job_info_from_objects(ctx_.settings, *w, {}).spec.service_type == "ingress";
  try {
    ctx_.client->remove(r, ns, name, ctx_.settings.delete_propagation);
  } catch (const ApiError& e) {
    if (e.not_found()) return false;
    throw;
  }
  // Foreground deletion keeps the workload until its pods are gone; wait, as `kubectl delete` does.
  if (!ctx_.client->wait_gone(r, ns, name, ctx_.settings.deletion_wait)) {
    ctx_.note(fmt::format("job '{}' is still being deleted after {}s (its pods are terminating); "
                          "'lanectl list -p {}' shows it until it is gone",
                          name, ctx_.settings.deletion_wait.count(), project));
  }
  // The Service and Ingress made for --port belong to the job; claims stay (they hold the data).
  remove_if_job_owns(res::kService, ns, name);
  if (ingress) remove_if_job_owns(res::kIngress, ns, name);
  return true;
}

void KubeJobs::remove_if_job_owns(const lane::kube::Resource& r, const std::string& ns, const std::string& job) {
  auto obj = ctx_.client->try_get(r, ns, job);
  if (!obj) return;
  auto labels = (*obj)["metadata"].value("labels", Json::object());
  if (text(labels, kJobLabel) != job) return;
  try {
    ctx_.client->remove(r, ns, job, "Background");
  } catch (const ApiError& e) {
    if (!e.not_found()) throw;
  }
}

std::vector<std::string> KubeJobs::delete_all_jobs(const std::string& project) {
  std::vector<std::string> names;
  for (const auto& j : jobs_in(ctx_.ns_of(project))) {
    if (delete_job(j.spec.name, project)) names.push_back(j.spec.name);
  }
  return names;
}

}  // namespace lane::submit::kube
