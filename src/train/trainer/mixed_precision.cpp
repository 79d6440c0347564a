#include "train/trainer/mixed_precision.h"

#include <ATen/autocast_mode.h>

#include "common/error.h"

namespace lane::train {

AutocastScope::AutocastScope(torch::DeviceType device_type, Precision precision) : device_type_(device_type) {
  if (precision == Precision::kFp32 || precision == Precision::kTf32) return;  // no autocast
  if (device_type != torch::kCPU && device_type != torch::kCUDA)
    throw Error("autocast: only CPU and CUDA devices are supported");
  active_ = true;
  previous_ = model::autocast_state(device_type);
  model::set_autocast_state(device_type, {true, precision == Precision::kBf16 ? torch::kBFloat16 : torch::kFloat16});
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // The cast cache holds lower-precision copies of the weights for this forward only.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  model::set_autocast_state(device_type_, previous_);
}

GradScaler::GradScaler(Options options) : options_(options), scale_(options.initial_scale) {
  if (!(options_.initial_scale > 0) || !(options_.growth_factor > 1) || !(options_.backoff_factor > 0) ||
      !(options_.backoff_factor < 1) || options_.growth_interval < 1)
    throw Error("GradScaler: scale > 0, growth > 1, 0 < backoff < 1 and interval >= 1 are required");
}

bool GradScaler::unscale_and_check(const std::vector<torch::Tensor>& parameters, dist::Communicator& comm) {
  torch::NoGradGuard no_grad;
  const double inv = 1.0 / scale_;
  torch::Tensor non_finite;  // count of inf/NaN gradient elements, on the gradients' device
  for (const auto& p : parameters) {
    auto g = p.grad();
    if (!g.defined()) continue;
    auto bad = torch::logical_not(torch::isfinite(g)).sum();
    non_finite = non_finite.defined() ? non_finite + bad : bad;
    g.mul_(inv);
  }
  double found = non_finite.defined() ? non_finite.item<double>() : 0.0;  // the one host read
  comm.allreduce_sum_f64(&found, 1);
  return found > 0;
}

bool GradScaler::step(torch::optim::Optimizer& opt, dist::Communicator& comm) {
  std::vector<torch::Tensor> params;
  for (const auto& group : opt.param_groups())
    for (const auto& p : group.params()) params.push_back(p);
  const bool found_inf = unscale_and_check(params, comm);
  if (!found_inf) opt.step();
  update(found_inf);
  return !found_inf;
}

void GradScaler::update(bool found_inf) {
  if (found_inf) {
    scale_ *= options_.backoff_factor;
    good_steps_ = 0;
    ++skipped_;
    return;
  }
  if (++good_steps_ == options_.growth_interval) {
    scale_ *= options_.growth_factor;
    good_steps_ = 0;
  }
}

MixedPrecision::MixedPrecision(torch::DeviceType type, Precision p) : device_type(type), precision(p) {
  if (p == Precision::kFp16) scaler = std::make_unique<GradScaler>();
}

}  // namespace lane::train
