#include "submit/kube/job_state.h"

#include <algorithm>
#include <set>

#include "submit/core/workload_json.h"
#include "submit/kube/client/credentials.h"

namespace lane::submit::kube {
namespace {

using Json = nlohmann::json;

bool condition_true(const Json& obj, const std::string& type) {
  const Json* st = obj.contains("status") ? &obj["status"] : nullptr;
  if (!st || !st->contains("conditions") || !(*st)["conditions"].is_array()) return false;
  for (const auto& c : (*st)["conditions"]) {
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  }
  return false;
}

std::string condition_message(const Json& obj, const std::string& type) {
  if (!obj.contains("status") || !obj["status"].contains("conditions")) return {};
  for (const auto& c : obj["status"]["conditions"]) {
    if (c.value("type", "") == type) return c.value("reason", "") + ": " + c.value("message", "");
  }
  return {};
}

std::string pod_role(const Json& pod) {
  const auto& labels = object_field(pod["metadata"], "labels");
  std::string role = labels.value(kMpiJobRoleLabel, "");
  return role.empty() ? "main" : role;
}

// A JobSpec for objects lanectl did not create (no spec annotation): what the object shows.
JobSpec spec_from_workload(const KubeSettings& s, const Json& w) {
  JobSpec spec;
  const auto& meta = w["metadata"];
  spec.name = meta.value("name", "");
  const auto& labels = object_field(meta, "labels");
  spec.project = labels.value(s.queue_label, labels.value(kProjectLabel, ""));
  if (spec.project.empty()) {
    std::string ns = meta.value("namespace", "");
    spec.project = ns.rfind(s.namespace_prefix, 0) == 0 ? ns.substr(s.namespace_prefix.size()) : ns;
  }
  const auto& ann = object_field(meta, "annotations");
  spec.user = ann.value(kUserAnnotation, labels.value("user", ""));
  const Json* tmpl = nullptr;
  if (w.value("kind", "") == "MPIJob") {
    spec.type = JobType::kMpi;
    const auto& worker = w["spec"]["mpiReplicaSpecs"]["Worker"];
    spec.processes = worker.value("replicas", 1);
    spec.slots_per_worker = w["spec"].value("slotsPerWorker", 1);
    tmpl = &worker["template"];
  } else {
    spec.type = labels.value(kPriorityLabel, "") == "build" ? JobType::kInteractive : JobType::kTrain;
    tmpl = &w["spec"]["template"];
  }
  if (tmpl && tmpl->contains("spec")) {
    const auto& c = (*tmpl)["spec"]["containers"][0];
    spec.image = c.value("image", "");
    if (c.contains("resources") && c["resources"].contains("limits")) {
      const auto& lim = c["resources"]["limits"];
      if (lim.contains("nvidia.com/gpu")) {
        const auto& g = lim["nvidia.com/gpu"];
        spec.gpu = g.is_string() ? std::stod(g.get<std::string>()) : g.get<double>();
      }
    }
    static const Json kNoAnnotations = Json::object();
    const auto& tann = (*tmpl).contains("metadata") ? object_field((*tmpl)["metadata"], "annotations")
                                                     : kNoAnnotations;
    if (tann.contains(kFractionAnnotation)) spec.gpu = std::stod(tann[kFractionAnnotation].get<std::string>());
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

double pod_gpus(const Json& pod) {
  double total = 0;
  const auto& spec = pod["spec"];
  if (spec.contains("containers")) {
    for (const auto& c : spec["containers"]) {
      if (!c.contains("resources") || !c["resources"].contains("limits")) continue;
      const auto& lim = c["resources"]["limits"];
      if (!lim.contains("nvidia.com/gpu")) continue;
      const auto& g = lim["nvidia.com/gpu"];
      total += g.is_string() ? std::stod(g.get<std::string>()) : g.get<double>();
    }
  }
  const auto& ann = object_field(pod["metadata"], "annotations");
  if (ann.contains(kFractionAnnotation) && ann[kFractionAnnotation].is_string()) {
    total += std::stod(ann[kFractionAnnotation].get<std::string>());
  }
  return total;
}

JobInfo job_info_from_objects(const KubeSettings& s, const Json& w, const std::vector<const Json*>& pods) {
  JobInfo info;
  const auto& meta = w["metadata"];
  const auto& ann = object_field(meta, "annotations");
  bool parsed = false;
  if (ann.contains(kSpecAnnotation) && ann[kSpecAnnotation].is_string()) {
    try {
      info.spec = spec_from_json(Json::parse(ann[kSpecAnnotation].get<std::string>()));
      parsed = true;
    } catch (const std::exception&) {
      parsed = false;  // edited by hand: fall back to what the object shows
    }
  }
  if (!parsed) info.spec = spec_from_workload(s, w);
  info.created_unix_ms = parse_time_ms(meta.value("creationTimestamp", ""));
  const Json& st = object_field(w, "status");
  info.started_unix_ms = parse_time_ms(st.value("startTime", ""));
  info.finished_unix_ms = parse_time_ms(st.value("completionTime", ""));

  std::set<std::string> nodes;
  info.pods.reserve(pods.size());
  for (const Json* p : pods) {
    PodInfo pi;
    pi.name = (*p)["metadata"].value("name", "");
    pi.status = object_field(*p, "status").value("phase", "Pending");
    pi.role = pod_role(*p);
    pi.node = (*p)["spec"].value("nodeName", "");
    double g = pod_gpus(*p);
    pi.gpu_share = g > 0 && g < 1 ? g : (g > 0 ? 1 : 0);
    pi.created_unix_ms = parse_time_ms((*p)["metadata"].value("creationTimestamp", ""));
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

  bool mpi = w.value("kind", "") == "MPIJob";
  if (condition_true(w, mpi ? "Succeeded" : "Complete")) {
    info.status = JobStatus::kSucceeded;
  } else if (condition_true(w, "Failed")) {
    info.status = JobStatus::kFailed;
    info.status_reason = condition_message(w, "Failed");
  } else if (info.pods_running > 0) {
    info.status = info.pods_pending > 0 ? JobStatus::kPending : JobStatus::kRunning;
    if (info.pods_pending > 0) info.status_reason = std::to_string(info.pods_pending) + " pod(s) still pending";
  } else {
    info.status = JobStatus::kPending;
    if (condition_true(w, "Suspended")) info.status_reason = "suspended";
  }
  if (info.status == JobStatus::kSucceeded || info.status == JobStatus::kFailed) info.gpus_allocated = 0;
  return info;
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
