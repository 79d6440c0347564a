#pragma once
// The memory check before training (memory_estimate.h does the arithmetic): the network's
// shape from the built model, what this rank may use (CPU: cgroup, --memory-limit, MemAvailable
// shared by the host's ranks; CUDA: the GPU's free memory), rank 0's line, and the refusal.
// Includes libtorch.
#include "train/device/device_select.h"
#include "train/dist/communicator.h"
#include "train/model/scnn.h"
#include "train/trainer/memory_estimate.h"
#include "train/config/train_config.h"

namespace lane::train {

// The layers and sizes of a built network, as the estimate reads them.
NetworkShape network_shape(model::ScnnImpl& net);

// The host's memory as this process sees it: the cgroup files under `cgroup_root` that
// /proc/self/cgroup names (v2 memory.max, v1 memory.limit_in_bytes, and their ancestors),
// /proc/meminfo's MemAvailable, and the explicit per-rank limit of the config.
HostMemory read_host_memory(const TrainConfig& cfg, int local_ranks, const std::string& cgroup_root = "/sys/fs/cgroup");

// Collective (one allreduce of the limit, so that every rank decides alike): estimates the
// run's peak per rank and compares it with the smallest limit of the ranks. Rank 0 prints the
// estimate, the limit and its source. Throws lane::UsageError (exit 2) with the fix when it does
// not fit, unless --memory-check is off.
void check_training_memory(const TrainConfig& cfg, const DeviceChoice& device, Precision precision,
                           model::ScnnImpl& net, dist::Communicator& comm);

}  // namespace lane::train
