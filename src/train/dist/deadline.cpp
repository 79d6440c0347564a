#include "train/dist/deadline.h"

#ifdef LANE_WITH_MPI
#include <sched.h>

#include <chrono>
#include <cstdio>

namespace lane::dist {

void abort_job(int my_rank, const std::string& message) {
  std::fprintf(stderr, "rank %d: %s; aborting\n", my_rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);  // MPI_Abort does not return; this is for the compiler
}

namespace {

std::string describe(int peer, double timeout_s, const char* what) {
  char buf[200];
  if (peer >= 0)
    std::snprintf(buf, sizeof buf, "no data from rank %d for %g s", peer, timeout_s);
  else
    std::snprintf(buf, sizeof buf, "%s did not complete in %g s (a rank stalled or died)", what,
                  timeout_s);
  return buf;
}

}  // namespace

void wait_all_or_abort(int n, MPI_Request* requests, int my_rank, int peer, double timeout_s,
                       const char* what) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  unsigned spins = 0;
  for (;;) {
    int done = 0;
    MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
    if (done) return;
    // Check the clock and yield the core only now and then: polling is what drives
    // OpenMPI's progress, and on an oversubscribed machine yielding lets the peer run.
    if (++spins % 64 == 0) {
      if (std::chrono::duration<double>(clock::now() - start).count() > timeout_s)
      {
        std::fprintf(stderr, "rank %d: waiting in %s\n", my_rank, what);
        abort_job(my_rank, describe(peer, timeout_s, what));
      }
      sched_yield();
    }
  }
}

void wait_or_abort(MPI_Request* request, int my_rank, int peer, double timeout_s, const char* what) {
  wait_all_or_abort(1, request, my_rank, peer, timeout_s, what);
}

}  // namespace lane::dist
#endif
