#include "submit/scheduler/fair_share.h"

#include <algorithm>
#include <numeric>

namespace lane::submit::sched::detail {

std::vector<double> water_fill(double capacity, const std::vector<ShareClaim>& claims) {
  std::vector<double> given(claims.size(), 0.0);
  std::vector<std::size_t> order;
  double weights = 0;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (claims[i].weight > 0 && claims[i].cap > 0) {
      order.push_back(i);
      weights += claims[i].weight;
    }
  }
  // Claims that saturate first (smallest cap per weight) are served first; ties by index.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return claims[a].cap / claims[a].weight < claims[b].cap / claims[b].weight;
  });
  double left = std::max(0.0, capacity);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const ShareClaim& c = claims[order[k]];
    const double level = left / weights;
    if (c.cap <= level * c.weight) {
      given[order[k]] = c.cap;
      left -= c.cap;
      weights -= c.weight;
      continue;
    }
    for (std::size_t r = k; r < order.size(); ++r) given[order[r]] = level * claims[order[r]].weight;
    break;
  }
  return given;
}

std::vector<FairShare> fair_shares(double capacity, const std::vector<FairShareInput>& projects) {
  const std::size_t n = projects.size();
  std::vector<FairShare> out(n);
  std::vector<ShareClaim> guarantee(n);
  double deserved_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double deserved = std::min(projects[i].quota, projects[i].demand);
    guarantee[i] = {std::max(0.0, deserved), std::max(0.0, projects[i].quota)};
    deserved_sum += guarantee[i].cap;
  }
  if (deserved_sum > capacity) {  // quotas oversold: share the capacity by quota
    const auto given = water_fill(capacity, guarantee);
    for (std::size_t i = 0; i < n; ++i) out[i].deserved = given[i];
    return out;
  }
  std::vector<ShareClaim> weighted(n), leftovers(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].deserved = guarantee[i].cap;
    if (!projects[i].over_quota_allowed) continue;
    const double more = projects[i].demand - out[i].deserved;
    if (more <= 0) continue;
    if (projects[i].quota > 0)
      weighted[i] = {more, projects[i].quota};
    else
      leftovers[i] = {more, 1.0};
  }
  const auto first = water_fill(capacity - deserved_sum, weighted);
  const double used = std::accumulate(first.begin(), first.end(), 0.0);
  const auto second = water_fill(capacity - deserved_sum - used, leftovers);
  for (std::size_t i = 0; i < n; ++i) out[i].spare = first[i] + second[i];
  return out;
}

}  // namespace lane::submit::sched::detail
