#pragma once
// Epoch order and per-rank shards with torch.utils.data.DistributedSampler semantics:
// shuffle with seed + epoch, pad to a multiple of world_size by wrapping around, then rank r
// takes positions r, r + world_size, ...
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lane::data {

struct ShardSpec {
  size_t dataset_size = 0;
  bool shuffle = true;
  uint64_t seed = 0;
  int rank = 0, world_size = 1;
};

// Number of samples each rank sees per epoch: ceil(dataset_size / world_size).
size_t shard_size(const ShardSpec& spec);

// Dataset indices rank `spec.rank` visits in `epoch`, in order. Platform-independent.
std::vector<size_t> shard_indices(const ShardSpec& spec, int epoch);

// Throws lane::UsageError naming the field unless 0 <= rank < world_size.
void check_shard_spec(const ShardSpec& spec);

}  // namespace lane::data
