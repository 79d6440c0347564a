#include "submit/scheduler/pass_state.h"

namespace lane::submit::sched::detail {

void start(PassState& s, int j, std::vector<PodSlot> slots) {
  JobState& job = s.jobs[j];
  job.started = job.running = true;
  job.slots = std::move(slots);
  s.projects[job.project].alloc += job.need;
  s.projects[job.project].started += 1;
  s.started.push_back(j);
}

void set_running(PassState& s, JobState& job, bool running) {
  if (job.running == running) return;
  for (const PodSlot& slot : job.slots) running ? s.capacity.occupy(slot) : s.capacity.release(slot);
  s.projects[job.project].alloc += running ? job.need : -job.need;
  job.running = running;
}

}  // namespace lane::submit::sched::detail
