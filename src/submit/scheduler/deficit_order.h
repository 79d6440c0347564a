#pragma once
// Internal: the ordering loop that the allocation phases share. Turns go to the project furthest
// below its fair share (alloc − fair share; ties by name = index), one waiting job per turn,
// each project's jobs in FIFO order. After its turn a project queues again with its new
// allocation; jobs that stopped waiting (started earlier in the pass) are skipped.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

class DeficitTurns {
 public:
  struct Turn {
    int project = -1;
    int job = -1;
  };

  explicit DeficitTurns(const PassState& s);

  // The next turn, or nullopt when no project has a waiting job left. Call it once the previous
  // turn's job has been dealt with: the project's allocation then sets its place in the order.
  std::optional<Turn> next();
  // The project of the last turn gets no more turns in this loop. Returns the jobs queued behind
  // that turn's job (in FIFO order), which are left without a turn.
  std::vector<int> stop();
  // `project`'s allocation changed outside its own turn (its jobs were preempted): re-sort it.
  void refresh(int project);

 private:
  void add(int project);
  std::size_t queue_size(int project) const { return projects_[project].pending.size(); }

  const std::vector<ProjectState>& projects_;
  const std::vector<JobState>& jobs_;
  std::set<std::pair<int64_t, int>> order_;  // (alloc − fair share at insertion, project)
  std::vector<int64_t> key_;                 // each queued project's key in order_
  std::vector<bool> queued_;
  std::vector<std::size_t> cursor_;          // per project: the next position in its pending queue
  int current_ = -1;                         // the project of the last turn, queued again by next()
};

}  // namespace lane::submit::sched::detail
