#pragma once
// Waiting on MPI requests with a deadline. OpenMPI has no asynchronous progress thread, so a
// wait is a polling loop anyway; polling ourselves lets us give up on a dead or stalled peer:
// print "rank R: no data from rank P for N s; aborting" and MPI_Abort the job (never a hang).
#ifdef LANE_WITH_MPI
#include <mpi.h>

#include <string>

namespace lane::dist {

// Polls until `request` completes. `peer` is the rank whose data we wait for (-1 if unknown;
// then `what` describes the operation). Resets on every call: the deadline measures
// time without progress on this request.
void wait_or_abort(MPI_Request* request, int my_rank, int peer, double timeout_s, const char* what);

// Same for several requests (all must complete).
void wait_all_or_abort(int n, MPI_Request* requests, int my_rank, int peer, double timeout_s,
                       const char* what);

[[noreturn]] void abort_job(int my_rank, const std::string& message);

}  // namespace lane::dist
#endif
