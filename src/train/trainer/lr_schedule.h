#pragma once
// Learning rate per step: linear warm-up from 0 (PAD's poly_scheduler), then polynomial decay
// base · (1 − t'/T')^power over the remaining steps, updated every iteration (ORIG train.lua).
#include <cstdint>

namespace lane::train {

struct LrSchedule {
  double base_lr = 0.025;
  int64_t warmup_steps = 0;
  int64_t total_steps = 1;
  double power = 0.9;

  double at(int64_t step) const;  // step counts from 0
};

}  // namespace lane::train
