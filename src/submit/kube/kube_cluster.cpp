#include "submit/kube/kube_cluster.h"

#include <algorithm>
#include <map>

#include "common/error.h"
#include "submit/kube/job_state.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

using lane::kube::ListOptions;
namespace res = lane::kube::resources;

namespace {

// The Ready condition and the InternalIP of a Node's status.
void describe_node_status(const Json& status, NodeStatus& node) {
  for (const auto& c : status.value("conditions", Json::array()))
    if (text(c, "type") == "Ready") node.ready = text(c, "status");
  for (const auto& a : status.value("addresses", Json::array()))
    if (text(a, "type") == "InternalIP") node.address = text(a, "address");
}

}  // namespace

void KubeCluster::set_nodes(const std::vector<NodeSpec>&) {
  throw UsageError("on Kubernetes the nodes come from the cluster (AKS node pools); 'cluster set-nodes' applies to "
                   "the local backend only");
}

std::vector<NodeStatus> KubeCluster::list_nodes() {
  std::map<std::string, NodeStatus> by;
  for (const auto& n : ctx_.client->list(res::kNode, "").items) {
    NodeStatus ns;
    ns.spec.name = text(n["metadata"], "name");
    ns.node_pool = text(n["metadata"].value("labels", Json::object()), kNodePoolLabel);
    const Json& status = object_field(n, "status");
    std::string g = text(object_field(status, "allocatable"), "nvidia.com/gpu");
    ns.spec.gpus = g.empty() ? 0 : std::stoi(g);
    std::string c = text(object_field(status, "capacity"), "nvidia.com/gpu");
    ns.gpu_capacity = c.empty() ? 0 : std::stoi(c);
    describe_node_status(status, ns);
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
    std::string entry = job.empty() ? "" : text(labels, kProjectLabel) + "/" + job;
    if (!job.empty()) {
      auto& jobs = it->second.jobs;
      if (std::find(jobs.begin(), jobs.end(), entry) == jobs.end()) jobs.push_back(entry);
    }
    // Which devices the pod got is known only to the device plugin on the node: no indices.
    // A fraction (gpu-fraction annotation) is a share of one GPU; whole GPUs are whole.
    GpuHold hold{entry, text(p["metadata"], "name"), {}, g < 1 ? g : 1, g};
    it->second.holds.push_back(std::move(hold));
  }
  std::vector<NodeStatus> out;
  for (auto& [_, n] : by) out.push_back(std::move(n));
  return out;
}

std::vector<std::pair<std::string, std::string>> KubeCluster::identity() {
  const auto& c = ctx_.client->connection();
  std::string server = c.server;  // without any user:password@ a URL might carry
  if (const auto scheme = server.find("://"); scheme != std::string::npos) {
    const auto host_end = server.find('/', scheme + 3);
    const auto at = server.rfind('@', host_end == std::string::npos ? std::string::npos : host_end);
    if (at != std::string::npos && at > scheme) server.erase(scheme + 3, at - scheme - 2);
  }
  return {{"Context", c.context},
          {"Kubeconfig user", c.user.empty() ? "-" : c.user},
          {"Cluster", server},
          {"Namespace", c.ns},
          {"Kubeconfig", c.config_file.empty() ? "-" : c.config_file.string()}};
}

}  // namespace lane::submit::kube
