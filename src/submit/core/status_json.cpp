#include "submit/core/status_json.h"

namespace lane::submit {

nlohmann::json project_to_json(const ProjectStatus& p) {
  return {{"name", p.spec.name}, {"gpuQuota", p.spec.gpu_quota}, {"overQuota", p.spec.over_quota},
          {"gpusAllocated", p.gpus_allocated}, {"gpusRequested", p.gpus_requested},
          {"fairShare", p.fair_share_known ? nlohmann::json(p.fair_share) : nlohmann::json()}, {"runningJobs", p.running_jobs}, {"pendingJobs", p.pending_jobs},
          {"explanation", p.explanation}};
}

nlohmann::json node_to_json(const NodeStatus& n) {
  nlohmann::json doc = {{"name", n.spec.name}, {"gpus", n.spec.gpus}, {"gpusAllocated", n.gpus_allocated},
                        {"declared", n.declared}, {"jobs", n.jobs}};
  if (!n.gpu_models.empty()) doc["gpuModels"] = n.gpu_models;
  if (n.gpu_capacity >= 0) doc["gpuCapacity"] = n.gpu_capacity;
  if (!n.ready.empty()) doc["ready"] = n.ready;
  if (!n.address.empty()) doc["address"] = n.address;
  return doc;
}

}  // namespace lane::submit
