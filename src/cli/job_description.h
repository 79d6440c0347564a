#pragma once
// `describe job`'s text (verb_describe.cpp): the Run:AI layout of a job's spec and status, the
// flags it was submitted with (submit::describe_flag_lines), then its pods and events.
#include <ostream>

#include "submit/core/workload.h"

namespace lane::cli {

// `wide`: the pods' IP and START TIME columns too (-o wide).
void print_job_description(const submit::JobInfo& job, bool wide, std::ostream& out);

}  // namespace lane::cli
