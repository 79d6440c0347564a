#include "submit/scheduler/gpu_units.h"

#include <cmath>

#include <fmt/format.h>

#include "submit/core/validate.h"

namespace lane::submit::sched::detail {

int64_t to_units(double gpus) { return std::llround(gpus * kUnitsPerGpu); }

double to_gpus(int64_t units) { return double(units) / kUnitsPerGpu; }

std::string format_gpus(double gpus) {
  std::string text = fmt::format("{:.2f}", gpus);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::optional<PodShape> pod_shape(double gpu_per_pod) {
  if (!std::isfinite(gpu_per_pod) || gpu_per_pod < 0 || gpu_per_pod > kMaxGpusPerProcess) return std::nullopt;
  const int64_t units = to_units(gpu_per_pod);
  if (units == 0) {
    if (gpu_per_pod > 0) return std::nullopt;  // below 1/1000 of a GPU: not representable
    return PodShape{0, 0};
  }
  if (units < kUnitsPerGpu) return PodShape{1, int(units)};
  if (units % kUnitsPerGpu != 0) return std::nullopt;  // 1.5 GPUs: neither a fraction nor whole
  return PodShape{int(units / kUnitsPerGpu), kUnitsPerGpu};
}

}  // namespace lane::submit::sched::detail
