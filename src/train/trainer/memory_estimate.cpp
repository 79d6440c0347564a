#include "train/trainer/memory_estimate.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

namespace lane::train {

namespace {

// Calibrated against peak RSS of scnn-train train on this repository's CPU machine
// (docs/training.md, "Memory check"): libtorch and the process before any tensor.
constexpr uint64_t kCpuRuntimeBytes = 200ull << 20;
// During a step, per parameter: weight, gradient, momentum and the SGD step's temporaries (fp32).
constexpr uint64_t kStepBytesPerParameter = 16;
// During a checkpoint save, per parameter: the model's state plus the archive serialised in
// memory and its digest-prefixed copy (measured: the peak of small inputs on the full model).
constexpr uint64_t kSaveBytesPerParameter = 30;
// The backward pass's gradients and convolution scratch, in multiples of the largest activation
// (measured: the per-image slope of peak RSS is the saved tensors plus about 8 of these).
constexpr uint64_t kWorkspaceLargestActivations = 8;
// The fusion buffer of the gradient allreduce (dist::kDefaultFusionThresholdBytes) at most.
constexpr uint64_t kFusionBufferBytes = 128ull << 20;
// A TuSimple frame as decoded before resizing (1280x720 BGR), twice per decode thread.
constexpr uint64_t kDecodeBytes = 2ull * 1280 * 720 * 3;

struct Activations {
  uint64_t saved = 0;    // what autograd keeps from the forward pass for the backward pass
  uint64_t largest = 0;  // the largest single feature map
};

// Per image: the tensors a training forward pass keeps for backward, layer by layer (conv +
// BN + ReLU keep the conv output and the ReLU output; a max-pool its int64 indices and output;
// each message-passing direction its output and its ReLU'd updates; the head its full-size
// float32 logits and log-softmax), plus the batch's image and int64 target.
Activations training_activations(const NetworkShape& n, uint64_t a) {
  Activations r;
  uint64_t h = uint64_t(n.input_height), w = uint64_t(n.input_width);
  const uint64_t full = h * w, c = uint64_t(n.num_classes);
  r.saved = 3 * full * 4 + 8 * full + (a < 4 ? 3 * full * a : 0);  // image, target, autocast's copy
  for (const auto& u : n.backbone) {
    const uint64_t map = uint64_t(u.channels) * h * w * a;
    r.saved += 2 * map;
    r.largest = std::max(r.largest, map);
    if (!u.pool_after) continue;
    h /= 2, w /= 2;
    r.saved += uint64_t(u.channels) * h * w * (8 + a);
  }
  const uint64_t eighth = h * w;
  r.saved += 2 * uint64_t(n.fc6_channels) * eighth * a + 2 * uint64_t(n.scnn_channels) * eighth * a;
  r.saved += 10 * uint64_t(n.scnn_channels) * eighth * a;  // 4 passes x (output, updates) + dropout
  r.saved += c * eighth * (a + 8) + 2 * c * full * 4;      // logits, softmax; full-size logits, log-softmax
  r.largest = std::max(r.largest, c * full * 4);
  return r;
}

}  // namespace

uint64_t MemoryEstimate::total() const {
  return runtime + std::max(model_state + std::max(training(batch), validation()), checkpoint);
}

MemoryEstimate estimate_memory(const NetworkShape& net, const MemoryRun& run) {
  const uint64_t a = uint64_t(run.activation_bytes);
  const uint64_t params = uint64_t(net.parameters), full = uint64_t(net.input_height) * uint64_t(net.input_width);
  const Activations act = training_activations(net, a);
  MemoryEstimate e;
  e.batch = run.batch;
  e.val_batch = run.val_batch;
  e.runtime = run.device_is_cuda ? 0 : kCpuRuntimeBytes + uint64_t(std::max(run.decode_threads, 1)) * kDecodeBytes;
  e.model_state = params * kStepBytesPerParameter + (a < 4 ? params * a : 0) + uint64_t(net.buffers) * 4 +
                  (run.ranks > 1 ? std::min(kFusionBufferBytes, params * 4) : 0);
  e.checkpoint = run.device_is_cuda ? 0 : params * kSaveBytesPerParameter;  // a GPU run saves from host copies
  e.per_image = act.saved + kWorkspaceLargestActivations * act.largest;
  // Decoded samples (float image and uint8 mask): the loader's queue of two batches and the batch
  // being collected; packed batches (float images, int64 target and its uint8 copy): the one
  // waiting for the step and the one the batch thread packs.
  e.data_per_image = run.device_is_cuda ? 0 : 3 * (12 * full + full) + 2 * (12 * full + 9 * full);
  // Without autograd a layer needs its input and output only; the head its softmax too.
  if (run.val_batch > 0) e.per_val_image = 2 * act.largest + 3 * uint64_t(net.num_classes) * full * 4 + 12 * full;
  return e;
}

int64_t largest_batch(const MemoryEstimate& e, uint64_t limit) {
  const uint64_t per = e.per_image + e.data_per_image;
  if (limit <= e.fixed() || per == 0 || e.validation() + e.fixed() > limit || e.runtime + e.checkpoint > limit)
    return 0;
  return int64_t((limit - e.fixed()) / per);
}

std::optional<MemoryLimit> cpu_memory_limit(const HostMemory& host) {
  std::optional<MemoryLimit> best;
  auto consider = [&](uint64_t bytes, std::string source) {
    if (!best || bytes < best->bytes) best = MemoryLimit{bytes, std::move(source)};
  };
  const int ranks = std::max(host.local_ranks, 1);
  const std::string shared = ranks > 1 ? fmt::format(" / {} ranks on this host", ranks) : "";
  if (host.explicit_limit) consider(*host.explicit_limit, host.explicit_source);
  if (host.cgroup_limit)
    consider(*host.cgroup_limit / uint64_t(ranks),
             fmt::format("cgroup limit {} ({}){}", host.cgroup_file, gib(*host.cgroup_limit), shared));
  if (host.mem_available)
    consider(*host.mem_available / uint64_t(ranks),
             fmt::format("MemAvailable {} in /proc/meminfo{}", gib(*host.mem_available), shared));
  return best;
}

std::optional<uint64_t> parse_mem_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return uint64_t(kib) * 1024;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_cgroup_limit(const std::string& text) {
  unsigned long long v = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%llu%c", &v, &rest) < 1 || (rest != 0 && rest != '\n')) return std::nullopt;
  if (v >= (1ull << 62)) return std::nullopt;  // v1's "unlimited" (a page-rounded LLONG_MAX)
  return uint64_t(v);
}

std::vector<std::string> cgroup_limit_files(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  auto walk_up = [&](const fs::path& mount, std::string rel, const char* file) {
    for (fs::path p = fs::path(rel).relative_path();; p = p.parent_path()) {
      files.push_back((mount / p / file).lexically_normal().string());
      if (p.empty()) break;
    }
  };
  std::istringstream in(proc_self_cgroup);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), rel = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) walk_up(cgroup_root, rel, "memory.max");
    std::istringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');)
      if (c == "memory") walk_up(fs::path(cgroup_root) / "memory", rel, "memory.limit_in_bytes");
  }
  return files;
}

std::string gib(uint64_t bytes) { return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30)); }

namespace {

// "1.2 GiB runtime + 0.6 GiB weights, gradients, momentum + 3.1 GiB activations and data (batch 8 at 368x640, bf16)"
std::string breakdown(const MemoryEstimate& e, const NetworkShape& n, const std::string& precision) {
  std::string parts = e.runtime > 0 ? gib(e.runtime) + " runtime + " : "";
  parts += fmt::format("{} model state + {} activations and data (batch {} at {}x{}, {})", gib(e.model_state),
                       gib(e.training(e.batch)), e.batch, n.input_height, n.input_width, precision);
  if (e.validation() > e.training(e.batch))
    parts += fmt::format("; validation at batch {} needs {}", e.val_batch, gib(e.validation()));
  if (e.checkpoint > e.model_state + std::max(e.training(e.batch), e.validation()))
    parts += fmt::format("; saving a checkpoint needs {}", gib(e.checkpoint));
  return parts;
}

}  // namespace

std::string memory_line(const MemoryEstimate& e, const std::optional<MemoryLimit>& limit, const NetworkShape& n,
                        const std::string& precision) {
  const std::string head = fmt::format("memory check: estimate {} per rank ({})", gib(e.total()), breakdown(e, n, precision));
  if (!limit) return head + ", no limit known: not checked";
  const bool fits = e.total() <= limit->bytes;
  return fmt::format("{}, limit {} ({}): {}", head, gib(limit->bytes), limit->source,
                     fits ? "fits" : "does not fit; not enforced (--memory-check off)");
}

std::string memory_refusal(const MemoryEstimate& e, const MemoryLimit& limit, const NetworkShape& n,
                           const std::string& precision, int local_ranks) {
  std::string fixes;
  if (e.fixed() + e.validation() >= limit.bytes && e.validation() > 0)
    fixes += fmt::format("a smaller VAL_BATCH_SIZE / --val-batch-size (now {}); ", e.val_batch);
  if (const int64_t b = largest_batch(e, limit.bytes); b >= 1)
    fixes += fmt::format("BATCH_SIZE={} / --batch-size {} (the largest batch that fits; now {}); ", b, b, e.batch);
  fixes += "--model small; a smaller --input-height/--input-width";
  if (local_ranks > 1) fixes += fmt::format("; fewer processes on this machine (now {})", local_ranks);
  return fmt::format(
      "memory check: training needs about {} per rank, more than the {} this rank may use ({}).\n"
      "  estimate: {}\n"
      "  fix: {}\n"
      "  to train anyway: --memory-check off (MEMORY_CHECK=off); the estimate is approximate (docs/training.md, "
      "\"Memory check\")",
      gib(e.total()), gib(limit.bytes), limit.source, breakdown(e, n, precision), fixes);
}

}  // namespace lane::train
