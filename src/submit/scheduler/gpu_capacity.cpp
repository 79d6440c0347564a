#include "submit/scheduler/gpu_capacity.h"

#include <fmt/format.h>

namespace lane::submit::sched::detail {

GpuCapacity::GpuCapacity(std::vector<std::pair<std::string, int>> nodes) {
  nodes_.reserve(nodes.size());
  for (auto& [name, gpus] : nodes) {
    NodeGpus n;
    n.name = std::move(name);
    n.used.assign(std::size_t(gpus), 0);
    n.whole.assign(std::size_t(gpus), false);
    n.free = gpus;
    by_free_.emplace(gpus, int(nodes_.size()));
    free_units_ += int64_t(gpus) * kUnitsPerGpu;
    free_gpus_ += gpus;
    nodes_.push_back(std::move(n));
  }
}

void GpuCapacity::set_free(int node, int free) {
  by_free_.erase({nodes_[node].free, node});
  free_gpus_ += free - nodes_[node].free;
  nodes_[node].free = free;
  by_free_.emplace(free, node);
}

// The single place where a GPU's usage changes, so both indexes stay consistent.
void GpuCapacity::add_units(int node, int gpu, int units, bool whole) {
  NodeGpus& n = nodes_[node];
  const int before = n.used[gpu];
  const int after = before + units;
  const bool was_shared = before > 0 && before < kUnitsPerGpu && !n.whole[gpu];
  if (was_shared) shared_.erase({kUnitsPerGpu - before, node, gpu});
  n.used[gpu] = after;
  n.whole[gpu] = whole && after > 0;
  if (after > 0 && after < kUnitsPerGpu && !whole) shared_.emplace(kUnitsPerGpu - after, node, gpu);
  if (before == 0 && after > 0) set_free(node, n.free - 1);
  if (before > 0 && after == 0) set_free(node, n.free + 1);
  free_units_ -= units;
}

std::optional<std::string> GpuCapacity::check(const PodSlot& slot) const {
  if (slot.node < 0 || slot.node >= node_count()) return std::string("unknown node");
  const NodeGpus& n = nodes_[slot.node];
  const bool whole = slot.units_per_gpu == kUnitsPerGpu;
  for (std::size_t i = 0; i < slot.gpus.size(); ++i) {
    const int g = slot.gpus[i];
    if (g < 0 || g >= int(n.used.size()))
      return fmt::format("GPU {} does not exist on node {} (it has {} GPUs)", g, n.name, n.used.size());
    for (std::size_t k = 0; k < i; ++k)
      if (slot.gpus[k] == g) return fmt::format("GPU {} on node {} is listed twice", g, n.name);
    if (n.used[g] > 0 && (whole || n.whole[g]))
      return fmt::format("GPU {} on node {} would be shared by a whole-GPU pod", g, n.name);
    if (n.used[g] + slot.units_per_gpu > kUnitsPerGpu)
      return fmt::format("GPU {} on node {} would be used {} > 1", g, n.name,
                         format_units(n.used[g] + slot.units_per_gpu));
  }
  return std::nullopt;
}

void GpuCapacity::occupy(const PodSlot& slot) {
  const bool whole = slot.units_per_gpu == kUnitsPerGpu;
  for (int g : slot.gpus) add_units(slot.node, g, slot.units_per_gpu, whole);
}

void GpuCapacity::release(const PodSlot& slot) {
  const bool whole = slot.units_per_gpu == kUnitsPerGpu;
  for (int g : slot.gpus) add_units(slot.node, g, -slot.units_per_gpu, whole);
}

std::optional<PodSlot> GpuCapacity::place(const PodShape& shape) {
  PodSlot slot;
  slot.units_per_gpu = shape.units_per_gpu;
  if (shape.gpus == 0) {
    slot.node = node_count() > 0 ? 0 : -1;  // CPU only: needs no GPU, lands on the first node
    return slot;
  }
  if (shape.fractional()) {
    // Best fit: the partly used GPU with the least remaining share that still fits.
    auto it = shared_.lower_bound({shape.units_per_gpu, -1, -1});
    if (it != shared_.end()) {
      slot.node = std::get<1>(*it);
      slot.gpus = {std::get<2>(*it)};
      occupy(slot);
      return slot;
    }
  }
  // A block of completely free GPUs on the node with the fewest free GPUs that suffices,
  // keeping the big blocks on other nodes for big pods.
  auto it = by_free_.lower_bound({shape.gpus, -1});
  if (it == by_free_.end()) return std::nullopt;
  slot.node = it->second;
  const NodeGpus& n = nodes_[slot.node];
  for (int g = 0; g < int(n.used.size()) && int(slot.gpus.size()) < shape.gpus; ++g)
    if (n.used[g] == 0) slot.gpus.push_back(g);
  occupy(slot);
  return slot;
}

bool GpuCapacity::place_all(const PodShape& shape, int pods, std::vector<PodSlot>& out) {
  if (shape.units() * pods > free_units_) return false;  // cheap early exit
  std::vector<PodSlot> placed;
  placed.reserve(std::size_t(pods));
  for (int i = 0; i < pods; ++i) {
    auto slot = place(shape);
    if (!slot) {
      for (auto r = placed.rbegin(); r != placed.rend(); ++r) release(*r);
      return false;
    }
    placed.push_back(std::move(*slot));
  }
  for (auto& slot : placed) out.push_back(std::move(slot));
  return true;
}

bool GpuCapacity::fits(const PodShape& shape, int pods) {
  std::vector<PodSlot> placed;
  if (!place_all(shape, pods, placed)) return false;
  for (auto r = placed.rbegin(); r != placed.rend(); ++r) release(*r);
  return true;
}

int64_t GpuCapacity::count_fit(const PodShape& shape) const {
  if (shape.gpus == 0) return node_count() > 0 ? INT64_MAX : 0;
  int64_t count = 0;
  if (shape.fractional()) {
    for (auto it = shared_.lower_bound({shape.units_per_gpu, -1, -1}); it != shared_.end(); ++it)
      count += std::get<0>(*it) / shape.units_per_gpu;
    return count + free_gpus_ * (kUnitsPerGpu / shape.units_per_gpu);
  }
  for (auto it = by_free_.lower_bound({shape.gpus, -1}); it != by_free_.end(); ++it)
    count += it->first / shape.gpus;
  return count;
}

std::pair<int, int> GpuCapacity::largest_free_block() const {
  if (by_free_.empty() || by_free_.rbegin()->first == 0) return {0, -1};
  // The largest count; among equals, the first node by name.
  const int most = by_free_.rbegin()->first;
  return {most, by_free_.lower_bound({most, -1})->second};
}

std::tuple<int, int, int> GpuCapacity::largest_free_share() const {
  if (shared_.empty()) return {0, -1, -1};
  const int most = std::get<0>(*shared_.rbegin());
  return *shared_.lower_bound({most, -1, -1});
}

}  // namespace lane::submit::sched::detail
