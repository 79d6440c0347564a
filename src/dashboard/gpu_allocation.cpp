#include "dashboard/gpu_allocation.h"

namespace lane::dashboard {

namespace {

nlohmann::json unassigned_entry(const submit::GpuHold& h) {
  return {{"job", h.job}, {"pod", h.pod}, {"gpus", h.gpus}, {"sharePerGpu", h.share_per_gpu}};
}

nlohmann::json node_document(const submit::NodeStatus& n) {
  nlohmann::json devices = nlohmann::json::array();
  for (int i = 0; i < n.spec.gpus; ++i)
    devices.push_back({{"index", i}, {"allocated", 0.0}, {"shares", nlohmann::json::array()}});
  nlohmann::json unassigned = nlohmann::json::array();
  bool indices_known = true;
  for (const auto& h : n.holds) {
    if (h.gpu_indices.empty()) {
      indices_known = false;
      unassigned.push_back(unassigned_entry(h));
      continue;
    }
    bool in_range = true;
    for (int g : h.gpu_indices) in_range = in_range && g >= 0 && g < n.spec.gpus;
    if (!in_range) {
      unassigned.push_back(unassigned_entry(h));
      continue;
    }
    for (int g : h.gpu_indices) {
      auto& d = devices[static_cast<size_t>(g)];
      d["shares"].push_back({{"job", h.job}, {"pod", h.pod}, {"share", h.share_per_gpu}});
      d["allocated"] = d["allocated"].get<double>() + h.share_per_gpu;
    }
  }
  nlohmann::json doc = {{"name", n.spec.name},
                        {"gpus", n.spec.gpus},
                        {"gpusAllocated", n.gpus_allocated},
                        {"devicesKnown", indices_known},
                        {"devices", devices},
                        {"unassigned", unassigned}};
  if (n.gpu_capacity >= 0) doc["gpuCapacity"] = n.gpu_capacity;
  if (!n.ready.empty()) doc["ready"] = n.ready;
  return doc;
}

}  // namespace

nlohmann::json gpus_document(const std::vector<submit::NodeStatus>& nodes) {
  nlohmann::json doc = nlohmann::json::array();
  for (const auto& n : nodes) doc.push_back(node_document(n));
  return doc;
}

}  // namespace lane::dashboard
