#pragma once
// Waiting on MPI requests with a deadline. OpenMPI has no asynchronous progress thread, so a
// wait is a polling loop anyway; polling ourselves lets us give up on a dead or stalled peer:
// print "rank R: no data from rank P for N s; aborting" and MPI_Abort the job (never a hang).
#ifdef LANE_WITH_MPI
#include <mpi.h>

#include <chrono>
#include <string>

namespace lane::dist {

// Polls until `request` completes. `peer` is the rank whose data we wait for (-1 if unknown;
// then `what` describes the operation). Resets on every call: the deadline measures
// time without progress on this request.
void wait_or_abort(MPI_Request* request, int my_rank, int peer, double timeout_s, const char* what);

// Same for several requests (all must complete).
void wait_all_or_abort(int n, MPI_Request* requests, int my_rank, int peer, double timeout_s,
                       const char* what);

// How long abort_job waits between printing its line and MPI_Abort, so that the other ranks
// that reached their deadline at the same time print theirs too.
inline constexpr std::chrono::milliseconds kAbortGrace{500};
[[noreturn]] void abort_job(int my_rank, const std::string& message);

// Paces a polling loop. Polling is what drives OpenMPI's progress, so a short wait polls flat
// out; a long one (a peer still computing) sleeps between polls, growing to 1 ms but never
// more than 1/20 of the wait so far, so that the waiting thread does not take a core from a
// backward pass (its own rank's or, oversubscribed, another's) at a bounded latency cost.
class PollPacer {
 public:
  explicit PollPacer(double timeout_s);
  // Call after each poll that found nothing. Returns false once the deadline has passed.
  bool pause();

 private:
  double timeout_s_;
  std::chrono::steady_clock::time_point start_;
  unsigned polls_ = 0;
};

}  // namespace lane::dist
#endif
