#pragma once
// Internal: the free capacity of every physical GPU, indexed so that one placement costs
// O(log nodes + log GPUs + GPUs per node) instead of a scan of the whole cluster:
//   * nodes ordered by their number of completely free GPUs (best-fit node for whole pods),
//   * partly used fractional GPUs ordered by remaining share (best-fit GPU for fractions).
// Whole-GPU pods and fractional pods never share a physical GPU.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "submit/scheduler/gpu_units.h"

namespace lane::submit::sched::detail {

// One pod's claim: `units_per_gpu` on each of `gpus` of node `node` (an index).
struct PodSlot {
  int node = -1;
  std::vector<int> gpus;
  int units_per_gpu = 0;
};

class GpuCapacity {
 public:
  explicit GpuCapacity(std::vector<std::pair<std::string, int>> nodes);  // (name, GPU count), sorted

  const std::string& node_name(int node) const { return nodes_[node].name; }
  int node_count() const { return int(nodes_.size()); }
  int node_gpus(int node) const { return int(nodes_[node].used.size()); }

  // Why `slot` cannot be added (unknown GPU, over 1.0, whole/fraction mix); nullopt if it can.
  std::optional<std::string> check(const PodSlot& slot) const;
  void occupy(const PodSlot& slot);  // precondition: check(slot) is nullopt
  void release(const PodSlot& slot);

  // Best-fit placement of one pod, applied to the capacity; nullopt (and no change) if it does not fit.
  std::optional<PodSlot> place(const PodShape& shape);
  // All `pods` pods or none (gang). Appends to `out` only on success.
  bool place_all(const PodShape& shape, int pods, std::vector<PodSlot>& out);
  // Would all `pods` fit now? (placement, then release: the capacity is unchanged)
  bool fits(const PodShape& shape, int pods);
  // How many pods of this shape fit at most in the free capacity (no change).
  int64_t count_fit(const PodShape& shape) const;

  int64_t free_units() const { return free_units_; }
  // Largest block of completely free GPUs on one node: (count, node index or -1).
  std::pair<int, int> largest_free_block() const;
  // Largest remaining share on a partly used fractional GPU: (units, node, gpu) or units 0.
  std::tuple<int, int, int> largest_free_share() const;

 private:
  struct NodeGpus {
    std::string name;
    std::vector<int> used;     // units in use per GPU, 0..1000
    std::vector<bool> whole;   // held by a whole-GPU pod
    int free = 0;              // GPUs with used == 0
  };
  void set_free(int node, int free);
  void add_units(int node, int gpu, int units, bool whole);  // units may be negative

  std::vector<NodeGpus> nodes_;
  std::set<std::pair<int, int>> by_free_;              // (free GPUs, node)
  std::set<std::tuple<int, int, int>> shared_;         // (remaining units, node, gpu), 0 < used < 1000
  int64_t free_units_ = 0;
  int64_t free_gpus_ = 0;
};

}  // namespace lane::submit::sched::detail
