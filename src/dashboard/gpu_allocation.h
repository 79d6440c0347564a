#pragma once
// The Nodes/GPUs page's document (GET /api/gpus): per node, per physical GPU, which pods hold
// which share of it, from the Cluster role's NodeStatus::holds. Where the backend cannot tell
// which device a pod holds (Kubernetes: the device plugin picks it), the pod's GPUs are listed
// per node under "unassigned" instead of being drawn on made-up devices.
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/cluster.h"

namespace lane::dashboard {

// [{name, gpus, gpuCapacity?, ready?, gpusAllocated, devicesKnown,
//   devices: [{index, allocated, shares: [{job, pod, share}]}],
//   unassigned: [{job, pod, gpus, sharePerGpu}]}]
// A hold naming a GPU index outside 0..gpus-1 (a node shrunk under a running job) is listed
// under "unassigned" too, so that nothing it holds is hidden.
nlohmann::json gpus_document(const std::vector<submit::NodeStatus>& nodes);

}  // namespace lane::dashboard
