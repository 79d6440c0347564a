#pragma once
// The supervisor's hidden verbs, which the factory dispatches: `lanectl __supervise` runs one
// attempt of a job (job_supervisor.h), `lanectl __rank` one MPI rank of it, `lanectl __torchrun`
// the ranks of a PyTorch job (torchrun.h).
#include <cstdint>
#include <filesystem>

namespace lane::submit::local {

// `lanectl __supervise HOME JOB_ID ATTEMPT`: returns the supervisor's exit code (0 even when
// the job failed: that is recorded in the state).
int supervise_job(const std::filesystem::path& home, int64_t job_id, int attempt);

// `lanectl __rank "GPUS0;GPUS1;..." -- CMD ARGS...`: run by mpirun once per rank; sets
// CUDA_VISIBLE_DEVICES to this rank's entry (OMPI_COMM_WORLD_RANK) and execs CMD.
int rank_exec(int argc, char** argv);

// Dispatches the hidden verbs above, __torchrun and __job-init (sandbox.h); returns -1 when
// argv[1] is not one of them.
int run_internal_verb(int argc, char** argv);

}  // namespace lane::submit::local
