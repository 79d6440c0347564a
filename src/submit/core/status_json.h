#pragma once
// JSON forms of the scheduler's status views, shared by `lanectl project list -o json`,
// `lanectl cluster nodes -o json` / `describe node -o json` and the dashboard's /api/projects
// and /api/nodes (field names are camelCase and stable).
#include <nlohmann/json.hpp>

#include "submit/core/cluster.h"
#include "submit/core/projects.h"

namespace lane::submit {

// name, gpuQuota, overQuota, gpusAllocated, gpusRequested, fairShare (null where the backend does
// not compute it: Kubernetes), runningJobs, pendingJobs, explanation[].
nlohmann::json project_to_json(const ProjectStatus& project);

// name, gpus, gpusAllocated, declared, jobs[], plus gpuCapacity, ready, address when known.
nlohmann::json node_to_json(const NodeStatus& node);

}  // namespace lane::submit
