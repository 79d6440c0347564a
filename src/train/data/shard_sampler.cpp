#include "train/data/shard_sampler.h"

#include <numeric>

#include <fmt/format.h>

#include "common/error.h"
#include "train/data/frame_transform.h"

namespace lane::data {

void check_shard_spec(const ShardSpec& spec) {
  if (spec.world_size < 1) throw UsageError(fmt::format("world_size is {}; it must be at least 1", spec.world_size));
  if (spec.rank < 0 || spec.rank >= spec.world_size)
    throw UsageError(fmt::format("rank {} is outside [0, world_size={})", spec.rank, spec.world_size));
}

size_t shard_size(const ShardSpec& spec) {
  check_shard_spec(spec);
  const size_t world = size_t(spec.world_size);
  return (spec.dataset_size + world - 1) / world;
}

std::vector<size_t> shard_indices(const ShardSpec& spec, int epoch) {
  const size_t per_rank = shard_size(spec);
  std::vector<size_t> order(spec.dataset_size);
  std::iota(order.begin(), order.end(), size_t{0});
  if (spec.shuffle) {
    // Fisher-Yates driven by splitmix64 so every platform and worker count sees one order.
    uint64_t state = mix_seed(spec.seed, uint64_t(epoch));
    for (size_t i = order.size(); i > 1; --i) {
      state = mix_seed(state, i);
      std::swap(order[i - 1], order[state % i]);
    }
  }
  std::vector<size_t> shard;
  if (order.empty()) return shard;
  shard.reserve(per_rank);
  const size_t world = size_t(spec.world_size);
  for (size_t k = 0; k < per_rank; ++k) shard.push_back(order[(size_t(spec.rank) + k * world) % order.size()]);
  return shard;
}

}  // namespace lane::data
