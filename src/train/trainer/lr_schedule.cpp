#include "train/trainer/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace lane::train {

double LrSchedule::at(int64_t step) const {
  const int64_t warmup = std::min(warmup_steps, total_steps);
  if (step < warmup) return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup + 1);
  const double span = static_cast<double>(std::max<int64_t>(total_steps - warmup, 1));
  const double progress = std::clamp(static_cast<double>(step - warmup) / span, 0.0, 1.0);
  return base_lr * std::pow(1.0 - progress, power);
}

}  // namespace lane::train
