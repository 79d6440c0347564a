#pragma once
// The Cluster role on Kubernetes: the nodes come from the cluster (their allocatable
// nvidia.com/gpu) and what the running pods hold of them; they cannot be declared.
#include "submit/core/cluster.h"
#include "submit/kube/kube_context.h"

namespace lane::submit::kube {

class KubeCluster : public Cluster {
 public:
  explicit KubeCluster(const KubeContext& context) : ctx_(context) {}

  void set_nodes(const std::vector<NodeSpec>& nodes) override;
  std::vector<NodeStatus> list_nodes() override;
  // The kubeconfig's names for the connection (tokens and certificates are never read here).
  std::vector<std::pair<std::string, std::string>> identity() override;

 private:
  const KubeContext& ctx_;
};

}  // namespace lane::submit::kube
