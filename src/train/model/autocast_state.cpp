#include "train/model/autocast_state.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define LANE_AUTOCAST_DEVICE_TYPED 1
#endif

namespace lane::model {

AutocastState autocast_state(torch::DeviceType type) {
  if (type != torch::kCPU && type != torch::kCUDA) return {};
#ifdef LANE_AUTOCAST_DEVICE_TYPED
  return {at::autocast::is_autocast_enabled(type), at::autocast::get_autocast_dtype(type)};
#else
  if (type == torch::kCUDA) return {at::autocast::is_enabled(), at::autocast::get_autocast_gpu_dtype()};
  return {at::autocast::is_cpu_enabled(), at::autocast::get_autocast_cpu_dtype()};
#endif
}

void set_autocast_state(torch::DeviceType type, const AutocastState& state) {
#ifdef LANE_AUTOCAST_DEVICE_TYPED
  at::autocast::set_autocast_enabled(type, state.enabled);
  at::autocast::set_autocast_dtype(type, state.dtype);
#else
  if (type == torch::kCUDA) {
    at::autocast::set_enabled(state.enabled);
    at::autocast::set_autocast_gpu_dtype(state.dtype);
  } else {
    at::autocast::set_cpu_enabled(state.enabled);
    at::autocast::set_autocast_cpu_dtype(state.dtype);
  }
#endif
}

}  // namespace lane::model
