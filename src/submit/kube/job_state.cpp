#include "submit/kube/job_state.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "submit/core/workload_json.h"
#include "kube/credentials.h"
#include "submit/kube/fields.h"

namespace lane::submit::kube {
namespace {

using Json = nlohmann::json;

bool condition_true(const WorkloadSummary& w, const std::string& type) {
  for (const auto& c : w.conditions) {
    if (c.type == type && c.status == kConditionTrue) return true;
  }
  return false;
}

std::string condition_message(const WorkloadSummary& w, const std::string& type) {
  for (const auto& c : w.conditions) {
    if (c.type == type) return c.reason + ": " + c.message;
  }
  return {};
}

// A JobSpec for objects lanectl did not create (no spec annotation): what the object shows.
JobSpec spec_from_workload(const KubeSettings& s, const WorkloadSummary& w) {
  JobSpec spec;
  spec.name = w.name;
  const std::string* queue = find_value(w.labels, s.queue_label);
  const std::string* project = find_value(w.labels, kProjectLabel);
  spec.project = queue ? *queue : project ? *project : std::string();
  if (spec.project.empty()) {
    spec.project = w.ns.rfind(s.namespace_prefix, 0) == 0 ? w.ns.substr(s.namespace_prefix.size()) : w.ns;
  }
  const std::string* user = find_value(w.annotations, kUserAnnotation);
  const std::string* user_label = find_value(w.labels, kUserLabel);
  spec.user = user ? *user : user_label ? *user_label : std::string();
  const PodTemplateSummary* tmpl = nullptr;
  if (w.kind == kMpiJobKind || w.kind == kPyTorchJobKind) {
    spec.type = w.kind == kMpiJobKind ? JobType::kMpi : JobType::kPyTorch;
    spec.processes = w.worker_replicas;
    spec.slots_per_worker = w.slots_per_worker;
    tmpl = &w.worker_template;
  } else {
    const std::string* priority = find_value(w.labels, kPriorityLabel);
    const bool interactive = priority && (*priority == kPriorityBuild || *priority == kPriorityBuildPreemptible ||
                                          *priority == kPriorityInteractivePreemptible);
    spec.type = interactive ? JobType::kInteractive : JobType::kTrain;
    if (interactive && *priority != kPriorityBuild) spec.preemptibility = Preemptibility::kPreemptible;
    tmpl = &w.job_template;
  }
  if (tmpl->has_spec) {
    if (tmpl->has_container) spec.image = tmpl->first_image;
    if (tmpl->first_gpu) spec.gpu = gpu_value(*tmpl->first_gpu);
    if (tmpl->fraction) spec.gpu = std::stod(*tmpl->fraction);
  }
  return spec;
}

}  // namespace

const Json& object_field(const Json& o, const char* key) {
  static const Json kEmpty = Json::object();
  if (!o.is_object()) (void)o.value(key, Json::object());  // throws value()'s type_error
  auto it = o.find(key);
  return it != o.end() ? *it : kEmpty;
}

int64_t parse_time_ms(const std::string& text) {
  if (text.empty()) return 0;
  auto t = lane::kube::parse_rfc3339(text);
  if (!t) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count();
}

double pod_gpus(const PodSummary& pod) {
  double total = 0;
  for (const auto& g : pod.gpus) total += gpu_value(g);
  if (pod.fraction) total += std::stod(*pod.fraction);
  return total;
}

double pod_gpus(const Json& pod) { return pod_gpus(summarize_pod(pod)); }

JobInfo job_info_from_summaries(const KubeSettings& s, const WorkloadSummary& w,
                                const std::vector<const PodSummary*>& pods) {
  JobInfo info;
  bool parsed = false;
  if (const std::string* spec_json = find_value(w.annotations, kSpecAnnotation)) {
    try {
      info.spec = spec_from_json(Json::parse(*spec_json));
      parsed = true;
    } catch (const std::exception&) {
      parsed = false;  // edited by hand: fall back to what the object shows
    }
  }
  if (!parsed) info.spec = spec_from_workload(s, w);
  info.created_unix_ms = parse_time_ms(w.created);
  info.started_unix_ms = parse_time_ms(w.start_time);
  info.finished_unix_ms = parse_time_ms(w.completion_time);

  std::set<std::string> nodes;
  info.pods.reserve(pods.size());
  for (const PodSummary* p : pods) {
    PodInfo pi;
    pi.name = p->name;
    pi.status = p->phase;
    pi.role = p->role.empty() ? "main" : p->role;
    pi.node = p->node;
    double g = pod_gpus(*p);
    pi.gpu_share = g > 0 && g < 1 ? g : (g > 0 ? 1 : 0);
    pi.created_unix_ms = parse_time_ms(p->created);
    pi.started_unix_ms = parse_time_ms(p->start_time);
    pi.ip = p->ip;
    if (pi.status == "Running") {
      ++info.pods_running;
      info.gpus_allocated += g;
      if (!pi.node.empty()) nodes.insert(pi.node);
    } else if (pi.status == "Pending") {
      ++info.pods_pending;
    }
    info.pods.push_back(std::move(pi));
  }
  std::sort(info.pods.begin(), info.pods.end(), [](const PodInfo& a, const PodInfo& b) {
    if (a.role != b.role) return a.role < b.role;  // launcher before worker
    return a.name < b.name;
  });
  info.nodes.assign(nodes.begin(), nodes.end());

  const bool kubeflow = w.kind == kMpiJobKind || w.kind == kPyTorchJobKind;
  if (condition_true(w, kubeflow ? kConditionSucceeded : kConditionComplete)) {
    info.status = JobStatus::kSucceeded;
  } else if (condition_true(w, kConditionFailed)) {
    info.status = JobStatus::kFailed;
    info.status_reason = condition_message(w, kConditionFailed);
  } else if (info.pods_running > 0) {
    info.status = info.pods_pending > 0 ? JobStatus::kPending : JobStatus::kRunning;
    if (info.pods_pending > 0) info.status_reason = std::to_string(info.pods_pending) + " pod(s) still pending";
  } else if (condition_true(w, kConditionSuspended)) {
    info.status = JobStatus::kSuspended;  // spec.suspend (Job) / spec.runPolicy.suspend (MPIJob), pods gone
    info.status_reason = condition_message(w, kConditionSuspended);
  } else {
    info.status = JobStatus::kPending;
  }
  if (info.status == JobStatus::kSucceeded || info.status == JobStatus::kFailed) info.gpus_allocated = 0;
  return info;
}

std::vector<JobInfo> jobs_from_summaries(const KubeSettings& s, const std::vector<const WorkloadSummary*>& workloads,
                                         const std::vector<const PodSummary*>& pods) {
  std::unordered_map<std::string, std::vector<const PodSummary*>> by;  // "<namespace>/<job>"
  by.reserve(pods.size());
  std::string key;
  for (const PodSummary* p : pods) {
    const std::string& job = p->mpi_job_name.empty() ? p->job_name : p->mpi_job_name;
    if (job.empty()) continue;
    key.assign(p->ns).append("/").append(job);
    by[key].push_back(p);
  }
  std::vector<JobInfo> out;
  out.reserve(workloads.size());
  static const std::vector<const PodSummary*> kNone;
  for (const WorkloadSummary* w : workloads) {
    if (w->owned_by_mpijob) continue;
    key.assign(w->ns).append("/").append(w->name);
    auto it = by.find(key);
    out.push_back(job_info_from_summaries(s, *w, it == by.end() ? kNone : it->second));
  }
  return out;
}

JobInfo job_info_from_objects(const KubeSettings& s, const Json& w, const std::vector<const Json*>& pods) {
  std::vector<PodSummary> summaries;
  summaries.reserve(pods.size());
  for (const Json* p : pods) summaries.push_back(summarize_pod(*p));
  std::vector<const PodSummary*> ptrs;
  for (const auto& p : summaries) ptrs.push_back(&p);
  return job_info_from_summaries(s, summarize_workload(w), ptrs);
}

std::vector<JobEvent> events_from_objects(const std::vector<Json>& events) {
  std::vector<JobEvent> out;
  auto text = [](const Json& o, const char* key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const auto& e : events) {
    JobEvent je;
    std::string t = text(e, "lastTimestamp");
    if (t.empty()) t = text(e, "eventTime");
    if (t.empty() && e.contains("metadata")) t = text(e["metadata"], "creationTimestamp");
    je.time_unix_ms = parse_time_ms(t);
    const auto io = e.value("involvedObject", Json::object());
    std::string kind = io.value("kind", "");
    std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
    je.source = kind + "/" + io.value("name", "");
    je.type = text(e, "type");
    if (je.type.empty()) je.type = "Normal";
    je.reason = text(e, "reason");
    je.message = text(e, "message");
    out.push_back(std::move(je));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const JobEvent& a, const JobEvent& b) { return a.time_unix_ms < b.time_unix_ms; });
  return out;
}

}  // namespace lane::submit::kube
