#include "submit/kube/object_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "submit/kube/fields.h"

namespace lane::submit::kube {
namespace {

using Json = nlohmann::json;

const Json* member(const Json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::string text(const Json* o, const char* key) {
  const Json* v = o ? member(*o, key) : nullptr;
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<GpuQuantity> gpu_limit(const Json& container) {
  const Json* res = member(container, "resources");
  const Json* lim = res ? member(*res, "limits") : nullptr;
  const Json* g = lim ? member(*lim, kGpuResource) : nullptr;
  if (!g) return std::nullopt;
  GpuQuantity q;
  q.is_text = g->is_string();
  if (q.is_text) q.text = g->get<std::string>();
  else if (g->is_number()) q.number = g->get<double>();
  return q;
}

int int_or(const Json* o, const char* key, int fallback) {
  const Json* v = o ? member(*o, key) : nullptr;
  return v && v->is_number() ? count_value(v->get<double>(), fallback) : fallback;
}

PodTemplateSummary summarize_template(const Json* tmpl) {
  PodTemplateSummary t;
  if (!tmpl) return t;
  if (const Json* meta = member(*tmpl, "metadata")) {
    const Json* ann = member(*meta, "annotations");
    const Json* f = ann ? member(*ann, kFractionAnnotation) : nullptr;
    if (f && f->is_string()) t.fraction = f->get<std::string>();
  }
  const Json* spec = member(*tmpl, "spec");
  if (!spec || !spec->is_object()) return t;
  t.has_spec = true;
  const Json* containers = member(*spec, "containers");
  if (containers && containers->is_array() && !containers->empty() && (*containers)[0].is_object()) {
    const Json& c = (*containers)[0];
    t.has_container = true;
    t.first_image = text(&c, "image");
    t.first_gpu = gpu_limit(c);
  }
  return t;
}

void string_pairs(const Json* map, StringPairs& out, bool (*keep)(std::string_view)) {
  if (!map || !map->is_object()) return;
  for (const auto& [k, v] : map->items()) {
    if (v.is_string() && (!keep || keep(k))) set_value(out, k, v.get<std::string>());
  }
}

}  // namespace

int count_value(double number, int fallback) {
  if (std::isnan(number)) return fallback;
  return static_cast<int>(std::clamp(number, double(std::numeric_limits<int>::min()),
                                     double(std::numeric_limits<int>::max())));
}

double gpu_value(const GpuQuantity& q) { return q.is_text ? std::stod(q.text) : q.number; }

const std::string* find_value(const StringPairs& pairs, std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return &v;
  }
  return nullptr;
}

void set_value(StringPairs& pairs, std::string key, std::string value) {
  for (auto& [k, v] : pairs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  pairs.emplace_back(std::move(key), std::move(value));
}

bool workload_annotation_read(std::string_view key) { return key == kSpecAnnotation || key == kUserAnnotation; }

WorkloadSummary summarize_workload(const Json& w) {
  WorkloadSummary s;
  s.kind = text(&w, "kind");
  const Json* meta = member(w, "metadata");
  s.name = text(meta, "name");
  s.ns = text(meta, "namespace");
  s.created = text(meta, "creationTimestamp");
  if (meta) {
    string_pairs(member(*meta, "labels"), s.labels, nullptr);
    string_pairs(member(*meta, "annotations"), s.annotations, workload_annotation_read);
    if (const Json* owners = member(*meta, "ownerReferences"); owners && owners->is_array()) {
      for (const auto& o : *owners) s.owned_by_mpijob = s.owned_by_mpijob || text(&o, "kind") == kMpiJobKind;
    }
  }
  if (const Json* spec = member(w, "spec")) {
    s.slots_per_worker = int_or(spec, kSlotsPerWorker, 1);
    s.job_template = summarize_template(member(*spec, "template"));
    const Json* replicas = member(*spec, kReplicaSpecs);
    if (!replicas) replicas = member(*spec, kPyTorchReplicaSpecs);
    if (const Json* worker = replicas ? member(*replicas, kWorkerReplica) : nullptr) {
      s.worker_replicas = int_or(worker, kReplicas, 1);
      s.worker_template = summarize_template(member(*worker, "template"));
    }
  }
  if (const Json* st = member(w, "status")) {
    s.start_time = text(st, kStartTime);
    s.completion_time = text(st, kCompletionTime);
    if (const Json* conds = member(*st, kConditions); conds && conds->is_array()) {
      for (const auto& c : *conds) {
        s.conditions.push_back({text(&c, "type"), text(&c, "status"), text(&c, "reason"), text(&c, "message")});
      }
    }
  }
  return s;
}

PodSummary summarize_pod(const Json& p) {
  PodSummary s;
  const Json* meta = member(p, "metadata");
  s.name = text(meta, "name");
  s.ns = text(meta, "namespace");
  s.created = text(meta, "creationTimestamp");
  if (meta) {
    const Json* labels = member(*meta, "labels");
    s.mpi_job_name = text(labels, kMpiJobNameLabel);
    s.job_name = text(labels, kBatchJobNameLabel);
    s.role = text(labels, kMpiJobRoleLabel);
    if (s.role.empty()) s.role = text(labels, kReplicaTypeLabel);  // PyTorchJob workers
    const Json* ann = member(*meta, "annotations");
    const Json* f = ann ? member(*ann, kFractionAnnotation) : nullptr;
    if (f && f->is_string()) s.fraction = f->get<std::string>();
  }
  if (const Json* st = member(p, "status"); st && member(*st, kPodPhase) && (*st)[kPodPhase].is_string()) {
    s.phase = (*st)[kPodPhase].get<std::string>();
  }
  if (const Json* st = member(p, "status")) {
    s.ip = text(st, "podIP");
    s.start_time = text(st, kStartTime);
  }
  if (const Json* spec = member(p, "spec")) {
    s.node = text(spec, kNodeName);
    if (const Json* containers = member(*spec, "containers"); containers && containers->is_array()) {
      for (const auto& c : *containers) {
        if (auto g = gpu_limit(c)) s.gpus.push_back(std::move(*g));
      }
    }
  }
  return s;
}

}  // namespace lane::submit::kube
