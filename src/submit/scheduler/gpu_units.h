#pragma once
// Internal: GPU amounts as integers (1/1000 of a GPU) so that 0.2 × 5 is exactly one GPU and
// every comparison is exact and platform-independent; plus the shape of one pod.
#include <cstdint>
#include <optional>
#include <string>

namespace lane::submit::sched::detail {

constexpr int kUnitsPerGpu = 1000;

int64_t to_units(double gpus);         // rounded to the nearest 1/1000
double to_gpus(int64_t units);
std::string format_gpus(double gpus);  // "2", "2.5", "2.67" (at most two decimals)
inline std::string format_units(int64_t units) { return format_gpus(to_gpus(units)); }

// What one pod asks for: `gpus` physical GPUs taking `units_per_gpu` of each.
// Whole: gpus = k, units = 1000. Fractional: gpus = 1, 0 < units < 1000. CPU only: gpus = 0.
struct PodShape {
  int gpus = 0;
  int units_per_gpu = 0;
  bool whole() const { return units_per_gpu == kUnitsPerGpu; }
  bool fractional() const { return gpus == 1 && units_per_gpu < kUnitsPerGpu; }
  int64_t units() const { return int64_t(gpus) * units_per_gpu; }
};

// nullopt for requests that no GPU can serve: negative, NaN, or above 1 and not whole (1.5).
std::optional<PodShape> pod_shape(double gpu_per_pod);

}  // namespace lane::submit::sched::detail
