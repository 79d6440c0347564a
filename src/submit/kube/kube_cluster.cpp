#include "submit/kube/kube_cluster.h"

#include <algorithm>
#include <map>

#include "common/error.h"
#include "submit/kube/job_state.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

using lane::kube::ListOptions;
namespace res = lane::kube::resources;

void KubeCluster::set_nodes(const std::vector<NodeSpec>&) {
  throw UsageError("on Kubernetes the nodes come from the cluster (AKS node pools); 'cluster set-nodes' applies to "
                   "the local backend only");
}

std::vector<NodeStatus> KubeCluster::list_nodes() {
  std::map<std::string, NodeStatus> by;
  for (const auto& n : ctx_.client->list(res::kNode, "").items) {
    NodeStatus ns;
    ns.spec.name = text(n["metadata"], "name");
    auto alloc = n.value("status", Json::object()).value("allocatable", Json::object());
    std::string g = text(alloc, "nvidia.com/gpu");
    ns.spec.gpus = g.empty() ? 0 : std::stoi(g);
    by[ns.spec.name] = ns;
  }
  ListOptions o;
  o.field_selector = "status.phase=Running";
  for (const auto& p : ctx_.client->list(res::kPod, "", o).items) {
    auto it = by.find(text(p["spec"], "nodeName"));
    if (it == by.end()) continue;
    double g = pod_gpus(p);
    if (g <= 0) continue;
    it->second.gpus_allocated += g;
    auto labels = p["metadata"].value("labels", Json::object());
    std::string job = text(labels, kJobLabel);
    if (!job.empty()) {
      std::string entry = text(labels, kProjectLabel) + "/" + job;
      auto& jobs = it->second.jobs;
      if (std::find(jobs.begin(), jobs.end(), entry) == jobs.end()) jobs.push_back(entry);
    }
  }
  std::vector<NodeStatus> out;
  for (auto& [_, n] : by) out.push_back(std::move(n));
  return out;
}

}  // namespace lane::submit::kube
