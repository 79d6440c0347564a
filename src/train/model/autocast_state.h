#pragma once
// libtorch's autocast state of one device type, across the libtorch versions this project builds
// with: 2.4 made autocast device-typed (set_autocast_enabled(device, on)); 1.13 to 2.3 have
// per-backend functions (set_enabled for CUDA, set_cpu_enabled for CPU). The model reads it
// (message passing casts its slice kernels once), the trainer sets it (AutocastScope).
#include <torch/torch.h>

namespace lane::model {

struct AutocastState {
  bool enabled = false;
  torch::ScalarType dtype = torch::kFloat32;  // what autocast computes in when enabled
};

// The state on `type`: CPU and CUDA only; any other device type reads as disabled.
AutocastState autocast_state(torch::DeviceType type);
// Sets the state on `type` (CPU or CUDA).
void set_autocast_state(torch::DeviceType type, const AutocastState& state);

}  // namespace lane::model
