#pragma once
// The memory check of scnn-train train, as pure functions: the peak memory of one rank's
// training (the model's state, the activations autograd keeps for the backward pass, the data
// pipeline's buffers) from the network's shape and the run's settings, the memory the rank may
// use (cgroup limit, --memory-limit, MemAvailable shared by the ranks of the host), and the
// verdict with the fix. No libtorch: memory_check.h reads the model, the host and the GPU.
// The activation count: docs/training.md ("Memory check"); its calibration against measured
// peak RSS: docs/dev/training.md ("Memory check calibration").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lane::train {

// What the estimate needs of the built network.
struct NetworkShape {
  struct Unit {
    int channels = 0;
    bool pool_after = false;  // 2x2 max-pool after the unit
  };
  std::vector<Unit> backbone;  // conv + BN + ReLU units at the input's resolution, then /2 per pool
  int fc6_channels = 0, scnn_channels = 0, num_classes = 0;
  int input_height = 0, input_width = 0;
  int64_t parameters = 0;  // parameter elements (float32), trainable or not
  int64_t buffers = 0;     // buffer elements (BatchNorm statistics)
};

// The run's settings the estimate depends on.
struct MemoryRun {
  int batch = 1;
  int val_batch = 0;              // 0: no validation
  int activation_bytes = 4;       // 4 (fp32, tf32) or 2 (bf16, fp16 autocast)
  bool device_is_cuda = false;    // activations and model on the GPU; data buffers stay on the host
  int ranks = 1;                  // the gradient fusion buffer exists with more than one
  int decode_threads = 1;         // the loader's worker threads (1 without workers)
};

// Bytes, split as the message shows them. The peak is the larger of a training step at `batch`,
// a validation pass at `val_batch` (both on top of the model's state) and a checkpoint save.
struct MemoryEstimate {
  uint64_t runtime = 0;        // libtorch and the process itself (CPU), measured
  uint64_t model_state = 0;    // weights, gradients, momentum, autocast's weight copies, fusion buffer
  uint64_t checkpoint = 0;     // the model's state while a checkpoint is serialised in memory
  uint64_t per_image = 0;      // a training step's activations and workspace, per image
  uint64_t data_per_image = 0; // host buffers of the loader per image of a batch
  uint64_t per_val_image = 0;  // a validation forward pass, per image (0 without validation)
  int batch = 1, val_batch = 0;

  uint64_t fixed() const { return runtime + model_state; }
  uint64_t training(int b) const { return uint64_t(b) * (per_image + data_per_image); }
  uint64_t validation() const { return uint64_t(val_batch) * (per_val_image + data_per_image); }
  uint64_t total() const;
};

MemoryEstimate estimate_memory(const NetworkShape& net, const MemoryRun& run);

// The largest training batch whose estimate fits in `limit` (0 when not even batch 1 fits).
int64_t largest_batch(const MemoryEstimate& e, uint64_t limit);

// What this rank may use and where that figure came from.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;  // "cgroup memory.max /sys/fs/cgroup/job/memory.max (4.0 GiB) / 2 ranks on this host"
};

// The host as the limit sees it; each part optional.
struct HostMemory {
  std::optional<uint64_t> cgroup_limit;  // the smallest memory.max / memory.limit_in_bytes above us
  std::string cgroup_file;
  std::optional<uint64_t> mem_available;  // /proc/meminfo MemAvailable
  std::optional<uint64_t> explicit_limit;  // --memory-limit (per rank)
  std::string explicit_source;
  int local_ranks = 1;  // ranks of this job on this host (OMPI_COMM_WORLD_LOCAL_SIZE)
};

// The smallest of: the explicit limit, the cgroup limit / local ranks, MemAvailable / local
// ranks. nullopt when none is known.
std::optional<MemoryLimit> cpu_memory_limit(const HostMemory& host);

// MemAvailable of a /proc/meminfo text, in bytes.
std::optional<uint64_t> parse_mem_available(const std::string& meminfo);
// A memory.max or memory.limit_in_bytes text: nullopt for "max" and for v1's "no limit" values
// (at least 2^62).
std::optional<uint64_t> parse_cgroup_limit(const std::string& text);
// The cgroup files that limit this process, from /proc/self/cgroup's text and the cgroup mount:
// memory.max of its v2 cgroup and every ancestor, memory.limit_in_bytes of its v1 memory cgroup
// and ancestors (and the mount's own file, as a container sees it).
std::vector<std::string> cgroup_limit_files(const std::string& proc_self_cgroup, const std::string& cgroup_root);

// "1.5 GiB"
std::string gib(uint64_t bytes);

// The line rank 0 prints before training: "memory check: estimate ... per rank (...), limit ...
// (source): fits", or "does not fit; not enforced (--memory-check off)", or "no limit known".
std::string memory_line(const MemoryEstimate& e, const std::optional<MemoryLimit>& limit, const NetworkShape& net,
                        const std::string& precision);

// The refusal's text (exit 2): the estimate, the limit and its source, the largest batch that
// fits, the other fixes and how to skip the check.
std::string memory_refusal(const MemoryEstimate& e, const MemoryLimit& limit, const NetworkShape& net,
                           const std::string& precision, int local_ranks);

}  // namespace lane::train
