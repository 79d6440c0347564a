#pragma once
// What the status rules (job_state) read of a workload (batch Job or MPIJob) and of a pod,
// in compact structs. `list` builds them straight from list pages without a JSON tree
// (list_page_parse.h); describe summarises parsed objects with the functions below.
// Both ways must fill the same fields the same way: test_list_page_parse checks that.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::submit::kube {

// A GPU limit as the object spells it: a quantity string ("1", "0.5"), or a bare number.
struct GpuQuantity {
  bool is_text = true;
  std::string text;
  double number = 0;
};
double gpu_value(const GpuQuantity& q);  // std::stod of the text (throws like it), or the number

// A count field (replicas, slotsPerWorker) as an int, clamped to int's range (JSON numbers
// may be anything); NaN gives `fallback`.
int count_value(double number, int fallback);

// Labels or annotations, looked up by key (order not significant; a later duplicate replaces).
// Values that are not strings are left out: the API server only stores string maps there.
using StringPairs = std::vector<std::pair<std::string, std::string>>;
const std::string* find_value(const StringPairs& pairs, std::string_view key);
void set_value(StringPairs& pairs, std::string key, std::string value);

// The annotations of a workload that job_state reads; others are never kept (some, such as
// kubectl's last-applied-configuration, are large).
bool workload_annotation_read(std::string_view key);

struct PodTemplateSummary {
  bool has_spec = false;                // template.spec present
  bool has_container = false;           // template.spec.containers[0] present
  std::string first_image;              // containers[0].image
  std::optional<GpuQuantity> first_gpu; // containers[0].resources.limits["nvidia.com/gpu"]
  std::optional<std::string> fraction;  // metadata.annotations["gpu-fraction"]
};

struct ConditionSummary {
  std::string type, status, reason, message;
};

struct WorkloadSummary {
  std::string kind;  // MPIJob | Job (list items get the listed resource's kind when they lack one)
  std::string name, ns, created;
  StringPairs labels;
  StringPairs annotations;  // only workload_annotation_read() keys
  bool owned_by_mpijob = false;  // metadata.ownerReferences has kind MPIJob (operator-made launcher Job)
  int worker_replicas = 1;       // spec.mpiReplicaSpecs (MPIJob) / pytorchReplicaSpecs (PyTorchJob) .Worker.replicas
  int slots_per_worker = 1;      // MPIJob spec.slotsPerWorker
  PodTemplateSummary job_template;     // batch Job spec.template
  PodTemplateSummary worker_template;  // MPIJob spec.mpiReplicaSpecs.Worker.template
  std::string start_time, completion_time;  // status
  std::vector<ConditionSummary> conditions; // status.conditions
};

struct PodSummary {
  std::string name, ns, created;
  std::string mpi_job_name;  // label training.kubeflow.org/job-name
  std::string job_name;      // label job-name (batch Job pods)
  std::string role;          // label training.kubeflow.org/job-role, else .../replica-type
  std::string phase = "Pending";  // status.phase; Pending when absent
  std::string node;               // spec.nodeName
  std::string ip, start_time;     // status.podIP, status.startTime
  std::vector<GpuQuantity> gpus;  // containers[*].resources.limits["nvidia.com/gpu"], where set
  std::optional<std::string> fraction;  // annotation gpu-fraction, when a string
};

// From parsed objects (get, watch, or list with a tree).
WorkloadSummary summarize_workload(const nlohmann::json& workload);
PodSummary summarize_pod(const nlohmann::json& pod);

}  // namespace lane::submit::kube
