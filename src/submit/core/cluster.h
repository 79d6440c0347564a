#pragma once
// The Cluster role: what `lanectl cluster set-nodes|nodes` ask of a backend.
#include <string>
#include <utility>
#include <vector>

namespace lane::submit {

struct NodeSpec {
  std::string name;
  int gpus = 0;
};

// What one running pod holds of a node's GPUs (the dashboard's per-GPU view).
struct GpuHold {
  std::string job;               // "<project>/<job>"
  std::string pod;
  std::vector<int> gpu_indices;  // the node's GPUs it holds; empty where the backend cannot tell
                                 // which (Kubernetes: the device plugin picks them on the node)
  double share_per_gpu = 1;      // of each GPU (1 = whole GPUs; 0.5 = half of one)
  double gpus = 0;               // in all: share_per_gpu x the GPUs it holds
};

// One row of `lanectl cluster nodes`.
struct NodeStatus {
  NodeSpec spec;
  double gpus_allocated = 0;   // sum of shares placed on the node
  std::vector<std::string> jobs;  // "<project>/<job>" running there
  bool declared = true;        // false: the default node made from detected GPUs
  std::string gpu_models;      // local, not declared: what nvidia-smi found ("2x NVIDIA H100 ..."); "" = none
  int gpu_capacity = -1;       // Kubernetes: status.capacity nvidia.com/gpu (spec.gpus: allocatable); -1 = as spec.gpus
  std::string ready;           // Kubernetes: the Ready condition ("True", "False", "Unknown"); "" = not known
  std::string address;         // Kubernetes: the InternalIP; "" = not known
  std::string node_pool;       // Kubernetes: its label kai.scheduler/node-pool; "" = the default pool
  std::vector<GpuHold> holds;  // the running pods holding GPUs there, in job order
};

class Cluster {
 public:
  virtual ~Cluster() = default;

  virtual void set_nodes(const std::vector<NodeSpec>& nodes) = 0;
  virtual std::vector<NodeStatus> list_nodes() = 0;
  // What `whoami` shows of how this backend reaches the cluster, as (label, value) pairs
  // (Kubernetes: context, user entry, cluster server, namespace, kubeconfig file). Names only:
  // never a token, certificate or key. Empty for the local backend.
  virtual std::vector<std::pair<std::string, std::string>> identity() = 0;
};

}  // namespace lane::submit
