#include "submit/scheduler/deficit_order.h"

namespace lane::submit::sched::detail {

DeficitTurns::DeficitTurns(const PassState& s)
    : projects_(s.projects),
      jobs_(s.jobs),
      key_(s.projects.size(), 0),
      queued_(s.projects.size(), false),
      cursor_(s.projects.size(), 0) {
  for (std::size_t p = 0; p < projects_.size(); ++p)
    if (!projects_[p].pending.empty()) add(int(p));
}

std::optional<DeficitTurns::Turn> DeficitTurns::next() {
  if (current_ >= 0 && cursor_[current_] < queue_size(current_)) add(current_);
  current_ = -1;
  while (!order_.empty()) {
    const int p = order_.begin()->second;
    order_.erase(order_.begin());
    queued_[p] = false;
    const std::vector<int>& queue = projects_[p].pending;
    std::size_t& next = cursor_[p];
    while (next < queue.size() && !jobs_[queue[next]].waiting()) ++next;
    if (next == queue.size()) continue;
    current_ = p;
    return Turn{p, queue[next++]};
  }
  return std::nullopt;
}

std::vector<int> DeficitTurns::stop() {
  std::vector<int> behind;
  if (current_ < 0) return behind;
  const std::vector<int>& queue = projects_[current_].pending;
  behind.assign(queue.begin() + std::ptrdiff_t(cursor_[current_]), queue.end());
  current_ = -1;
  return behind;
}

void DeficitTurns::refresh(int p) {
  if (!queued_[p]) return;
  order_.erase({key_[p], p});
  key_[p] = projects_[p].alloc - projects_[p].fair;
  order_.emplace(key_[p], p);
}

void DeficitTurns::add(int p) {
  if (queued_[p]) return;
  queued_[p] = true;
  key_[p] = projects_[p].alloc - projects_[p].fair;
  order_.emplace(key_[p], p);
}

}  // namespace lane::submit::sched::detail
