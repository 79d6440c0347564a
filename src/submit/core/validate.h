#pragma once
// The rules every JobSpec must follow, whichever backend runs it: one function, one message
// per rule (naming the flag and the fix), used by the CLI before it talks to a backend and by
// each backend before it creates anything. What only a backend can check (does the project or
// claim exist, does the request fit the cluster) stays with that backend.
#include "submit/core/workload.h"

namespace lane::submit {

// Throws UsageError (exit code 2) for the first rule `spec` breaks; returns when it breaks none.
void validate(const JobSpec& spec);

// The same rules except the job name, for a spec whose name is picked later (an empty name is
// resolved from --job-name-prefix by the backend; a name that is given is still checked).
void validate_unnamed(const JobSpec& spec);

}  // namespace lane::submit
