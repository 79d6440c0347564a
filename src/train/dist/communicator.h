#pragma once
// The process group scnn-train trains with: rank/size, our ring allreduce, broadcast, barrier.
// No libtorch and no MPI in this header, so the trainer and the tests include it cheaply.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace lane::dist {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // In place sum over all ranks (our pipelined ring). Every rank passes the same count.
  virtual void allreduce_sum(float* data, size_t count) = 0;
  // In place mean over all ranks; the ring folds the 1/N into its last reduction step.
  virtual void allreduce_mean(float* data, size_t count);
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  virtual void barrier() = 0;

  // In place sum of a few doubles (metrics); not the ring, latency matters here.
  virtual void allreduce_sum_f64(double* data, size_t count);
  // Minimum of one value over all ranks (the gradient synchronizer's readiness negotiation).
  virtual uint64_t allreduce_min(uint64_t value);
  // How long a wait for a peer may last before the job is aborted with the peer named.
  virtual void set_timeout_seconds(double seconds) { timeout_seconds_ = seconds; }
  double timeout_seconds() const { return timeout_seconds_; }

 protected:
  double timeout_seconds_ = 30.0;
};

// Default for the stall deadline; LANE_DIST_TIMEOUT_S overrides it (seconds, > 0).
double default_timeout_seconds();

// MPI when launched under mpirun with more than one rank (OMPI_COMM_WORLD_SIZE),
// otherwise single-process.
std::unique_ptr<Communicator> create_communicator();

// Always the single-process group (rank 0 of 1); all collectives are no-ops.
std::unique_ptr<Communicator> create_single_process_communicator();

}  // namespace lane::dist
