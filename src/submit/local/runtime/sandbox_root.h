#pragma once
// Builds the job's root file system from job_view() with mount(2) and moves into it
// (pivot_root): called by the job's init process, already in its own mount and PID namespaces,
// as root. Throws std::runtime_error naming the step that failed.
#include "submit/local/runtime/job_launch.h"

namespace lane::submit::local {

void enter_job_root(const LaunchPlan& plan);

}  // namespace lane::submit::local
