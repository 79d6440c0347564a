#pragma once
// The per-job supervisor: a small detached process (`lanectl __supervise HOME JOB_ID ATTEMPT`,
// started by a scheduling pass with double fork + setsid) that runs one attempt of a job:
// starts it in its own process group inside the sandbox, timestamps its output into
// $LANECTL_HOME/jobs/<id>/output.log, stops it on SIGTERM (preemption, delete: SIGTERM to the
// group, SIGKILL after LANECTL_GRACE_SECONDS, default 10), records the exit status and runs a
// scheduling pass so that waiting jobs can start. No daemon: the state database is the only
// meeting point.
#include <cstdint>
#include <filesystem>

namespace lane::submit::local {

// Returns the supervisor's exit code (0 even when the job failed: that is recorded in the state).
int supervise_job(const std::filesystem::path& home, int64_t job_id, int attempt);

// `lanectl __rank "GPUS0;GPUS1;..." -- CMD ARGS...`: run by mpirun once per rank; sets
// CUDA_VISIBLE_DEVICES to this rank's entry (OMPI_COMM_WORLD_RANK) and execs CMD.
int rank_exec(int argc, char** argv);

// Dispatches the hidden verbs above; returns -1 when argv[1] is not one of them.
int run_internal_verb(int argc, char** argv);

}  // namespace lane::submit::local
