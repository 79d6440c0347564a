#include "submit/kube/list_page_parse.h"

#include <cstdint>

#include "submit/kube/fields.h"

namespace lane::submit::kube {
namespace {

using Json = nlohmann::json;

// The role of a value by where it sits in the page: the open containers' roles form a path,
// and a key (or an array element) picks the role of the value that follows. Values without
// a role (kSkip) are parsed past without being kept.
enum class At : uint8_t {
  kSkip,
  // objects and arrays
  kRoot, kPageMeta, kItems, kItem, kMeta, kLabels, kAnnotations, kOwnerRefs, kOwnerRef,
  kWorkloadSpec, kReplicaSpecs, kWorker, kTemplate, kTemplateMeta, kTemplateAnnotations, kTemplateSpec,
  kPodSpec, kContainers, kContainer, kResources, kLimits, kWorkloadStatus, kConditions, kCondition, kPodStatus,
  // scalars
  kContinue, kResourceVersion, kKind, kName, kNamespace, kCreated, kLabel, kAnnotation, kMpiJobNameLabel,
  kJobNameLabel, kRoleLabel, kReplicaTypeLabel, kOwnerKind, kSlots, kReplicas, kImage, kGpu, kFraction, kNodeName, kPhase,
  kStartTime, kCompletionTime, kPodIP, kPodStartTime, kCondType, kCondStatus, kCondReason, kCondMessage,
};

bool is_array_role(At a) {
  return a == At::kItems || a == At::kOwnerRefs || a == At::kContainers || a == At::kConditions;
}
bool is_object_role(At a) { return a != At::kSkip && a < At::kContinue && !is_array_role(a); }

At element_of(At array) {
  switch (array) {
    case At::kItems: return At::kItem;
    case At::kOwnerRefs: return At::kOwnerRef;
    case At::kContainers: return At::kContainer;
    case At::kConditions: return At::kCondition;
    default: return At::kSkip;
  }
}

class SummaryHandler {
 public:
  // Exactly one of `workloads` / `pods` is set: the kind of page.
  SummaryHandler(std::vector<WorkloadSummary>* workloads, std::vector<PodSummary>* pods, const std::string& kind)
      : workloads_(workloads), pods_(pods), listed_kind_(kind) {}

  lane::kube::ListPageMeta meta;

  bool null() { return scalar_gpu_other(); }
  bool boolean(bool) { return scalar_gpu_other(); }
  bool number_integer(Json::number_integer_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return number(static_cast<double>(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return number(v); }
  bool binary(Json::binary_t&) { return true; }  // JSON text has none

  bool string(Json::string_t& v) {
    if (skip_depth_ > 0) return true;
    switch (value_role()) {
      case At::kContinue: meta.continue_token = v; break;
      case At::kResourceVersion: meta.resource_version = v; break;
      case At::kKind: if (w_) w_->kind = v; break;
      case At::kName: (w_ ? w_->name : p_->name) = v; break;
      case At::kNamespace: (w_ ? w_->ns : p_->ns) = v; break;
      case At::kCreated: (w_ ? w_->created : p_->created) = v; break;
      case At::kLabel: set_value(w_->labels, std::move(key_), v); break;
      case At::kAnnotation: set_value(w_->annotations, std::move(key_), v); break;
      case At::kMpiJobNameLabel: p_->mpi_job_name = v; break;
      case At::kJobNameLabel: p_->job_name = v; break;
      case At::kRoleLabel: p_->role = v; break;
      case At::kReplicaTypeLabel: if (p_->role.empty()) p_->role = v; break;  // job-role, when given, wins
      case At::kOwnerKind: w_->owned_by_mpijob = w_->owned_by_mpijob || v == kMpiJobKind; break;
      case At::kImage:
        if (tmpl_ && container_index_ == 1) tmpl_->first_image = v;
        break;
      case At::kGpu: gpu(GpuQuantity{true, v, 0}); break;
      case At::kFraction: (tmpl_ ? tmpl_->fraction : p_->fraction) = v; break;
      case At::kNodeName: p_->node = v; break;
      case At::kPhase: p_->phase = v; break;
      case At::kStartTime: w_->start_time = v; break;
      case At::kPodIP: p_->ip = v; break;
      case At::kPodStartTime: p_->start_time = v; break;
      case At::kCompletionTime: w_->completion_time = v; break;
      case At::kCondType: w_->conditions.back().type = v; break;
      case At::kCondStatus: w_->conditions.back().status = v; break;
      case At::kCondReason: w_->conditions.back().reason = v; break;
      case At::kCondMessage: w_->conditions.back().message = v; break;
      default: break;
    }
    return true;
  }

  bool key(Json::string_t& k) {
    if (skip_depth_ > 0) return true;
    next_ = child(stack_.back(), k);
    if (next_ == At::kLabel || next_ == At::kAnnotation) key_ = k;  // a copy: the lexer reuses its buffer
    return true;
  }

  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;
  }

 private:
  // The role of the value that starts now: an array's element, or the value after a key.
  At value_role() {
    if (stack_.empty()) return At::kRoot;
    At top = stack_.back();
    if (top == At::kContainers) ++container_index_;  // counts every element, as containers[0] does
    return is_array_role(top) ? element_of(top) : next_;
  }

  bool number(double v) {
    if (skip_depth_ > 0) return true;
    switch (value_role()) {
      case At::kSlots: w_->slots_per_worker = count_value(v, w_->slots_per_worker); break;
      case At::kReplicas: w_->worker_replicas = count_value(v, w_->worker_replicas); break;
      case At::kGpu: gpu(GpuQuantity{false, {}, v}); break;
      default: break;
    }
    return true;
  }

  // null/true/false as a GPU limit: kept as the number 0, like summarize_pod.
  bool scalar_gpu_other() {
    if (skip_depth_ > 0) return true;
    if (value_role() == At::kGpu) gpu(GpuQuantity{false, {}, 0});
    return true;
  }

  void gpu(GpuQuantity q) {
    if (p_) {
      p_->gpus.push_back(std::move(q));
    } else if (tmpl_ && container_index_ == 1) {
      tmpl_->first_gpu = std::move(q);
    }
  }

  // The role of key `k` inside a value whose role is `parent`; kSkip for what is not read.
  At child(At parent, const std::string& k) const {
    switch (parent) {
      case At::kRoot:
      case At::kPageMeta:
      case At::kItem:
      case At::kMeta:
      case At::kLabels:
      case At::kAnnotations:
      case At::kOwnerRef:
        return metadata_child(parent, k);
      case At::kWorkloadSpec:
      case At::kReplicaSpecs:
      case At::kWorker:
      case At::kTemplate:
      case At::kTemplateMeta:
      case At::kTemplateAnnotations:
      case At::kWorkloadStatus:
      case At::kCondition:
        return workload_child(parent, k);
      case At::kTemplateSpec:
      case At::kPodSpec:
      case At::kContainer:
      case At::kResources:
      case At::kLimits:
      case At::kPodStatus:
        return pod_child(parent, k);
      default:
        return At::kSkip;
    }
  }

  // Keys of the page, of an item and of its metadata.
  At metadata_child(At parent, const std::string& k) const {
    const bool pods = pods_ != nullptr;
    switch (parent) {
      case At::kRoot:
        if (k == "items") return At::kItems;
        if (k == "metadata") return At::kPageMeta;
        break;
      case At::kPageMeta:
        if (k == "continue") return At::kContinue;
        if (k == "resourceVersion") return At::kResourceVersion;
        break;
      case At::kItem:
        if (k == "metadata") return At::kMeta;
        if (k == "spec") return pods ? At::kPodSpec : At::kWorkloadSpec;
        if (k == "status") return pods ? At::kPodStatus : At::kWorkloadStatus;
        if (k == "kind") return At::kKind;
        break;
      case At::kMeta:
        if (k == "name") return At::kName;
        if (k == "namespace") return At::kNamespace;
        if (k == "labels") return At::kLabels;
        if (k == "annotations") return At::kAnnotations;
        if (k == "creationTimestamp") return At::kCreated;
        if (k == "ownerReferences" && !pods) return At::kOwnerRefs;
        break;
      case At::kLabels:
        if (!pods) return At::kLabel;
        if (k == kMpiJobNameLabel) return At::kMpiJobNameLabel;
        if (k == kBatchJobNameLabel) return At::kJobNameLabel;
        if (k == kMpiJobRoleLabel) return At::kRoleLabel;
        if (k == kReplicaTypeLabel) return At::kReplicaTypeLabel;
        break;
      case At::kAnnotations:
        if (pods) return k == kFractionAnnotation ? At::kFraction : At::kSkip;
        if (workload_annotation_read(k)) return At::kAnnotation;
        break;
      case At::kOwnerRef:
        if (k == "kind") return At::kOwnerKind;
        break;
      default:
        break;
    }
    return At::kSkip;
  }

  // Keys of a workload's spec (replica specs, pod template) and status.
  At workload_child(At parent, const std::string& k) const {
    switch (parent) {
      case At::kWorkloadSpec:
        if (k == kReplicaSpecs || k == kPyTorchReplicaSpecs) return At::kReplicaSpecs;
        if (k == "template") return At::kTemplate;
        if (k == kSlotsPerWorker) return At::kSlots;
        break;
      case At::kReplicaSpecs:
        if (k == kWorkerReplica) return At::kWorker;
        break;
      case At::kWorker:
        if (k == "template") return At::kTemplate;
        if (k == kReplicas) return At::kReplicas;
        break;
      case At::kTemplate:
        if (k == "spec") return At::kTemplateSpec;
        if (k == "metadata") return At::kTemplateMeta;
        break;
      case At::kTemplateMeta:
        if (k == "annotations") return At::kTemplateAnnotations;
        break;
      case At::kTemplateAnnotations:
        if (k == kFractionAnnotation) return At::kFraction;
        break;
      case At::kWorkloadStatus:
        if (k == kConditions) return At::kConditions;
        if (k == kStartTime) return At::kStartTime;
        if (k == kCompletionTime) return At::kCompletionTime;
        break;
      case At::kCondition:
        if (k == "type") return At::kCondType;
        if (k == "status") return At::kCondStatus;
        if (k == "reason") return At::kCondReason;
        if (k == "message") return At::kCondMessage;
        break;
      default:
        break;
    }
    return At::kSkip;
  }

  // Keys of a pod's (or a pod template's) spec and of a pod's status.
  At pod_child(At parent, const std::string& k) const {
    switch (parent) {
      case At::kTemplateSpec:
        if (k == "containers") return At::kContainers;
        break;
      case At::kPodSpec:
        if (k == "containers") return At::kContainers;
        if (k == kNodeName) return At::kNodeName;
        break;
      case At::kContainer:
        if (k == "resources") return At::kResources;
        if (k == "image") return At::kImage;
        break;
      case At::kResources:
        if (k == "limits") return At::kLimits;
        break;
      case At::kLimits:
        if (k == kGpuResource) return At::kGpu;
        break;
      case At::kPodStatus:
        if (k == kPodPhase) return At::kPhase;
        if (k == "podIP") return At::kPodIP;
        if (k == kStartTime) return At::kPodStartTime;
        break;
      default:
        break;
    }
    return At::kSkip;
  }

  bool open(bool object) {
    if (skip_depth_ > 0) {
      ++skip_depth_;
      return true;
    }
    const At parent = stack_.empty() ? At::kSkip : stack_.back();
    const At role = value_role();
    if (object ? !is_object_role(role) : !is_array_role(role)) {
      ++skip_depth_;  // unread, or not the type a Kubernetes object has there
      return true;
    }
    switch (role) {
      case At::kItem:
        if (pods_) {
          p_ = &pods_->emplace_back();
        } else {
          w_ = &workloads_->emplace_back();
        }
        break;
      case At::kTemplate:
        tmpl_ = parent == At::kWorker ? &w_->worker_template : &w_->job_template;
        break;
      case At::kTemplateSpec: tmpl_->has_spec = true; break;
      case At::kContainers: container_index_ = 0; break;
      case At::kContainer:
        if (tmpl_ && container_index_ == 1) tmpl_->has_container = true;
        break;
      case At::kCondition: w_->conditions.emplace_back(); break;
      default: break;
    }
    stack_.push_back(role);
    return true;
  }

  bool close() {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return true;
    }
    switch (stack_.back()) {
      case At::kItem:
        if (w_ && w_->kind.empty()) w_->kind = listed_kind_;
        w_ = nullptr;
        p_ = nullptr;
        break;
      case At::kTemplate: tmpl_ = nullptr; break;
      default: break;
    }
    stack_.pop_back();
    return true;
  }

  std::vector<WorkloadSummary>* workloads_;
  std::vector<PodSummary>* pods_;
  const std::string& listed_kind_;
  std::vector<At> stack_;        // roles of the open containers
  At next_ = At::kSkip;          // role of the value after the last key
  std::string key_;              // that key, where it is a label/annotation name
  int skip_depth_ = 0;           // > 0: inside a value nobody reads
  int container_index_ = 0;      // elements of the open containers array seen so far
  WorkloadSummary* w_ = nullptr; // the item being filled
  PodSummary* p_ = nullptr;
  PodTemplateSummary* tmpl_ = nullptr;  // the pod template being filled
};

}  // namespace

lane::kube::ListPageMeta parse_workload_page(const std::string& text, const std::string& listed_kind,
                                             std::vector<WorkloadSummary>& out) {
  SummaryHandler h(&out, nullptr, listed_kind);
  Json::sax_parse(text, &h);
  return std::move(h.meta);
}

lane::kube::ListPageMeta parse_pod_page(const std::string& text, std::vector<PodSummary>& out) {
  static const std::string kPod = "Pod";
  SummaryHandler h(nullptr, &out, kPod);
  Json::sax_parse(text, &h);
  return std::move(h.meta);
}

}  // namespace lane::submit::kube
