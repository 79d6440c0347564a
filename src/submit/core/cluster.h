#pragma once
// The Cluster role: what `lanectl cluster set-nodes|nodes` ask of a backend.
#include <string>
#include <vector>

namespace lane::submit {

struct NodeSpec {
  std::string name;
  int gpus = 0;
};

// One row of `lanectl cluster nodes`.
struct NodeStatus {
  NodeSpec spec;
  double gpus_allocated = 0;   // sum of shares placed on the node
  std::vector<std::string> jobs;  // "<project>/<job>" running there
  bool declared = true;        // false: the default node made from detected GPUs
};

class Cluster {
 public:
  virtual ~Cluster() = default;

  virtual void set_nodes(const std::vector<NodeSpec>& nodes) = 0;
  virtual std::vector<NodeStatus> list_nodes() = 0;
};

}  // namespace lane::submit
