#pragma once
// Internal: how many GPUs each project is entitled to this cycle.
//   1. deserved = min(quota, usable demand)        (the guarantee)
//   2. the spare GPUs (capacity − Σ deserved) are water-filled among the projects with a quota
//      that want more and allow over-quota, in proportion to their quotas;
//   3. what they cannot use is water-filled, equally, among the projects with quota 0.
// When Σ deserved exceeds the capacity (quotas oversold), the capacity itself is water-filled
// in proportion to the quotas, capped at each deserved amount.
#include <vector>

namespace lane::submit::sched::detail {

struct ShareClaim {
  double cap = 0;     // at most this much
  double weight = 0;  // relative speed at which the claim fills
};

// Water-filling: raise a common level; claim i gets min(cap_i, level × weight_i); the level rises
// until the capacity is used or every claim is capped. Deterministic; claims with weight 0 get 0.
std::vector<double> water_fill(double capacity, const std::vector<ShareClaim>& claims);

struct FairShareInput {
  double quota = 0;
  double demand = 0;  // usable demand: GPUs its jobs could hold (Interactive counted up to the quota)
  bool over_quota_allowed = true;
};

struct FairShare {
  double deserved = 0;  // min(quota, demand), scaled down if quotas are oversold
  double spare = 0;     // its part of the spare GPUs
  double total() const { return deserved + spare; }
};

std::vector<FairShare> fair_shares(double capacity, const std::vector<FairShareInput>& projects);

}  // namespace lane::submit::sched::detail
