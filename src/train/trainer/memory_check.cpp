#include "train/trainer/memory_check.h"

#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/quantity.h"
#include "train/trainer/device_setup.h"

namespace lane::train {

namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What this rank may use: the GPU's free memory on CUDA, else the host's limits.
std::optional<MemoryLimit> rank_limit(const TrainConfig& cfg, const DeviceChoice& device, int local_ranks) {
  if (device.kind == DeviceKind::kCuda) {
    if (const auto free = gpu_free_memory(device))
      return MemoryLimit{*free, fmt::format("free memory of {}", device.describe())};
    return std::nullopt;
  }
  return cpu_memory_limit(read_host_memory(cfg, local_ranks));
}

}  // namespace

NetworkShape network_shape(model::ScnnImpl& net) {
  NetworkShape s;
  for (auto& u : net.vgg_units())
    s.backbone.push_back({static_cast<int>(u.conv->options.out_channels()), u.pool_after});
  const model::ScnnConfig& c = net.config();
  s.fc6_channels = c.channels(1024);
  s.scnn_channels = c.scnn_channels();
  s.num_classes = c.num_classes;
  s.input_height = c.input_height;
  s.input_width = c.input_width;
  for (const auto& p : net.parameters()) s.parameters += p.numel();
  for (const auto& b : net.buffers()) s.buffers += b.numel();
  return s;
}

HostMemory read_host_memory(const TrainConfig& cfg, int local_ranks, const std::string& cgroup_root) {
  HostMemory h;
  h.local_ranks = local_ranks;
  if (!cfg.memory_limit.empty()) {
    h.explicit_limit = parse_quantity_bytes(cfg.memory_limit);  // checked by the settings
    h.explicit_source = fmt::format("{} {}", cfg.memory_limit_source, cfg.memory_limit);
  }
  for (const auto& file : cgroup_limit_files(read_text("/proc/self/cgroup").value_or(""), cgroup_root)) {
    const auto text = read_text(file);
    const auto limit = text ? parse_cgroup_limit(*text) : std::nullopt;
    if (limit && (!h.cgroup_limit || *limit < *h.cgroup_limit)) {
      h.cgroup_limit = limit;
      h.cgroup_file = file;
    }
  }
  if (const auto meminfo = read_text("/proc/meminfo")) h.mem_available = parse_mem_available(*meminfo);
  return h;
}

void check_training_memory(const TrainConfig& cfg, const DeviceChoice& device, Precision precision,
                           model::ScnnImpl& net, dist::Communicator& comm) {
  const NetworkShape shape = network_shape(net);
  MemoryRun run;
  run.batch = cfg.batch_size;
  run.val_batch = cfg.use_val ? cfg.val_batch_size : 0;
  run.activation_bytes = precision == Precision::kBf16 || precision == Precision::kFp16 ? 2 : 4;
  run.device_is_cuda = device.kind == DeviceKind::kCuda;
  run.ranks = comm.size();
  run.decode_threads = cfg.use_workers ? cfg.num_workers : 1;
  const MemoryEstimate estimate = estimate_memory(shape, run);
  const int local_ranks = probe_device_environment(process_environment()).local_size;
  std::optional<MemoryLimit> limit = rank_limit(cfg, device, local_ranks);
  // Every rank decides on the smallest limit, so that all stop or all train.
  const uint64_t mine = limit ? limit->bytes : std::numeric_limits<uint64_t>::max();
  const uint64_t least = comm.allreduce_min(mine);
  if (least < mine) limit = MemoryLimit{least, "the smallest limit among the ranks"};
  const std::string precision_text = precision_name(precision);
  const bool fits = !limit || estimate.total() <= limit->bytes;
  if (fits || cfg.memory_check == "off") {
    if (comm.rank() == 0) std::cout << "scnn-train: " << memory_line(estimate, limit, shape, precision_text) << std::endl;
    return;
  }
  if (comm.rank() != 0) throw UsageError("memory check: the run does not fit in memory (rank 0 prints the estimate and the fix)");
  throw UsageError(memory_refusal(estimate, *limit, shape, precision_text, local_ranks));
}

}  // namespace lane::train
