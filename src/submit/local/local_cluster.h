#pragma once
// The Cluster role of the local backend: the declared nodes (`cluster set-nodes`), else one
// node with the GPUs detected on this machine, and what the running jobs hold of them.
#include "submit/core/cluster.h"
#include "submit/local/state/local_state.h"

namespace lane::submit::local {

class LocalCluster : public Cluster {
 public:
  explicit LocalCluster(LocalState& state) : st_(state) {}

  void set_nodes(const std::vector<NodeSpec>& nodes) override;
  std::vector<NodeStatus> list_nodes() override;
  std::vector<std::pair<std::string, std::string>> identity() override { return {}; }

 private:
  LocalState& st_;
};

}  // namespace lane::submit::local
