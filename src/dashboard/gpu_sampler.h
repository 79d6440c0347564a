#pragma once
// GPU utilization and memory over time for the Nodes/GPUs page (GET /api/gpus/metrics), sampled
// by running `nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total
// --format=csv,noheader,nounits` every few seconds into a bounded ring buffer per GPU. Only where
// the GPUs are this machine's (the local backend) and `nvidia-smi` is on PATH; otherwise the
// sampler is "unavailable" with a reason the page shows.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::dashboard {

// One line of the query: a GPU's reading. A field nvidia-smi reports as "[N/A]" or
// "[Not Supported]" is nullopt.
struct GpuReading {
  int index = 0;
  std::string uuid;
  std::optional<double> utilization_percent;
  std::optional<double> memory_used_mib;
  std::optional<double> memory_total_mib;
};

struct GpuReadings {
  std::vector<GpuReading> gpus;
  std::vector<std::string> errors;  // "line N: why" for each malformed line (skipped)
};

// Parses the CSV output of the query above (5 fields a line, ", "-separated; blank lines ignored).
GpuReadings parse_nvidia_smi_csv(const std::string& text);

// The samples of every GPU, at most `capacity` per GPU (the oldest dropped first).
class GpuHistory {
 public:
  explicit GpuHistory(size_t capacity) : capacity_(capacity) {}
  void add(int64_t unix_ms, const std::vector<GpuReading>& readings);
  // {"gpus": [{index, uuid, samples: [[unix_ms, util|null, memUsedMiB|null, memTotalMiB|null], ...]}]}
  nlohmann::json to_json() const;

 private:
  struct Sample {
    int64_t unix_ms;
    std::optional<double> util, used, total;
  };
  struct Series {
    std::string uuid;
    std::deque<Sample> samples;
  };
  size_t capacity_;
  std::map<int, Series> series_;
};

// `name` found as an executable file in one of PATH's directories; nullopt when none.
std::optional<std::filesystem::path> find_on_path(const std::string& name);

class GpuSampler {
 public:
  // A sampler that never samples and says why (GET /api/gpus/metrics: available false, reason).
  static std::unique_ptr<GpuSampler> unavailable(std::string reason);
  // Samples now and then every `interval` on a thread of its own, until destroyed.
  GpuSampler(std::filesystem::path nvidia_smi, std::chrono::milliseconds interval, size_t capacity);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // {available, reason, source, intervalSeconds, gpus: [...], lastError}
  nlohmann::json document() const;

 private:
  explicit GpuSampler(std::string reason);
  void loop();
  void sample_once();

  std::filesystem::path tool_;
  std::chrono::milliseconds interval_{0};
  std::string unavailable_reason_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  GpuHistory history_;
  std::string last_error_;
  std::thread thread_;
};

// The sampler `lanectl dashboard` runs: on the local backend with nvidia-smi on PATH, one that
// samples every `interval`; otherwise an unavailable one saying why.
std::unique_ptr<GpuSampler> make_gpu_sampler(const std::string& backend_kind, std::chrono::milliseconds interval);

}  // namespace lane::dashboard
