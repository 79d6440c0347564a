#include "train/dist/deadline.h"

#ifdef LANE_WITH_MPI
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace lane::dist {

void abort_job(int my_rank, const std::string& message) {
  std::fprintf(stderr, "rank %d: %s; aborting\n", my_rank, message.c_str());
  std::fflush(stderr);
  // In a ring every rank downstream of a stalled one runs into its deadline within
  // milliseconds of the others, and which of them gets there first is down to scheduling.
  // MPI_Abort ends them all at once, so wait a moment: each of them prints whom it waited on,
  // and the first line, "no data from rank P", from the stalled rank's right neighbour, is
  // not lost to a neighbour further along the ring that happened to abort first.
  std::this_thread::sleep_for(kAbortGrace);
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

PollPacer::PollPacer(double timeout_s) : timeout_s_(timeout_s), start_(std::chrono::steady_clock::now()) {}

bool PollPacer::pause() {
  if (++polls_ % 32 != 0) return true;  // poll flat out between clock reads
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (waited > timeout_s_) return false;
  if (waited < 50e-6) return true;
  if (waited < 1e-3) {
    sched_yield();
    return true;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(std::min(1e-3, waited / 20)));
  return true;
}

void wait_all_or_abort(int n, MPI_Request* requests, int my_rank, int peer, double timeout_s,
                       const char* what) {
  PollPacer pacer(timeout_s);
  for (;;) {
    int done = 0;
    MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if (!pacer.pause()) {
      std::fprintf(stderr, "rank %d: waiting in %s\n", my_rank, what);
      abort_job(my_rank, describe(peer, timeout_s, what));
    }
  }
}

void wait_or_abort(MPI_Request* request, int my_rank, int peer, double timeout_s, const char* what) {
  wait_all_or_abort(1, request, my_rank, peer, timeout_s, what);
}

}  // namespace lane::dist
#endif
