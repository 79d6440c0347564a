#pragma once
// Horovod-style data-parallel gradient averaging for libtorch (built with LANE_WITH_TORCH).
// Include only from .cpp files that already pay for <torch/torch.h>.
#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "train/dist/communicator.h"

namespace lane::dist {

// Horovod's HOROVOD_FUSION_THRESHOLD default since v0.21.0 (PR #2468): 128 MiB.
constexpr size_t kDefaultFusionThresholdBytes = size_t{128} * 1024 * 1024;

class GradientSynchronizer {
 public:
  // parameters: the model's parameters (float32, all on one device). Gradients are fused into
  // buffers of at most fusion_threshold_bytes in reverse parameter order and reduced on a
  // communication thread while backward() is still running.
  GradientSynchronizer(Communicator& comm, std::vector<torch::Tensor> parameters,
                       size_t fusion_threshold_bytes);
  ~GradientSynchronizer();
  GradientSynchronizer(const GradientSynchronizer&) = delete;
  GradientSynchronizer& operator=(const GradientSynchronizer&) = delete;

  void prepare();  // before backward(): arm the hooks for this step
  void wait();     // after backward(): every parameter's grad is averaged across ranks

  // Statistics of the last step (for logs and the benchmarks).
  struct StepStats {
    size_t fused_allreduces = 0;   // ring calls in the last step
    double exposed_wait_ms = 0;    // time wait() blocked
    size_t copied_gradients = 0;   // gradients copied into the fusion buffer (0 once every
                                   // .grad is its slot: from the second step on)
  };
  StepStats last_step_stats() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Zeroes every gradient `opt` holds in place (a parameter without a gradient keeps none): what a
// training step with a GradientSynchronizer must use instead of opt.zero_grad(). libtorch 2.x's
// Optimizer::zero_grad(set_to_none = true) resets each .grad to undefined, which drops the
// synchronizer's zero-copy gradients (the next backward allocates new ones, which are then copied
// into the fusion buffer every step); 1.13's zero_grad() zeroed in place and has no argument.
void zero_grad_in_place(torch::optim::Optimizer& opt);

// Parameters AND buffers from rank 0 (checks first that every rank has the same shapes).
void broadcast_module(Communicator& comm, torch::nn::Module& module);
// Optimizer options and state (momentum etc.) from rank 0, via libtorch's own serializer.
void broadcast_optimizer_state(Communicator& comm, torch::optim::Optimizer& opt);
// Mean of value over all ranks.
double average_scalar(Communicator& comm, double value);

}  // namespace lane::dist
