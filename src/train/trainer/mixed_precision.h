#pragma once
// Mixed precision for the training step: autocast around the forward pass (bf16 or fp16, the
// parameters stay float32 master weights) and, for fp16, dynamic loss scaling. Includes
// libtorch: trainer, bench and test code only.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "train/device/device_select.h"
#include "train/dist/communicator.h"
#include "train/model/autocast_state.h"

namespace lane::train {

// Autocast for `device_type` in `precision` for the lifetime of the object (nothing for fp32 and
// tf32), restoring the previous state and clearing the cast cache on exit, like Python's autocast.
class AutocastScope {
 public:
  AutocastScope(torch::DeviceType device_type, Precision precision);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  torch::DeviceType device_type_;
  bool active_ = false;
  model::AutocastState previous_;
};

// Dynamic loss scaling (the algorithm of torch.cuda.amp.GradScaler, defaults included): the loss
// is multiplied by `scale` before backward; after the gradients are averaged over the ranks they
// are unscaled and checked; a step with an inf/NaN gradient is skipped and the scale halves;
// after `growth_interval` good steps in a row it doubles.
class GradScaler {
 public:
  struct Options {
    double initial_scale = 65536.0;
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    int64_t growth_interval = 2000;
  };
  GradScaler() : GradScaler(Options{}) {}
  explicit GradScaler(Options options);

  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Unscales every defined gradient in place; returns whether any rank saw an inf or NaN (the
  // flag is summed over comm, so every rank decides the same). Costs one device-to-host read.
  bool unscale_and_check(const std::vector<torch::Tensor>& parameters, dist::Communicator& comm);
  // Steps the optimizer unless the gradients were not finite, then updates the scale.
  // Returns whether the optimizer stepped.
  bool step(torch::optim::Optimizer& opt, dist::Communicator& comm);

  double current_scale() const { return scale_; }
  int64_t skipped_steps() const { return skipped_; }

 private:
  void update(bool found_inf);

  Options options_;
  double scale_;
  int64_t good_steps_ = 0;
  int64_t skipped_ = 0;
};

// What the step needs to know about precision: the autocast device and dtype, and for fp16 the
// scaler (absent otherwise).
struct MixedPrecision {
  torch::DeviceType device_type = torch::kCPU;
  Precision precision = Precision::kFp32;
  std::unique_ptr<GradScaler> scaler;  // fp16 only

  MixedPrecision() = default;
  MixedPrecision(torch::DeviceType type, Precision p);
};

}  // namespace lane::train
