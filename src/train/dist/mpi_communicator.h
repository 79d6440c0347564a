#pragma once
// Communicator over OpenMPI. Two duplicated communicators keep the traffic apart:
//   ring_comm: allreduce_sum (our ring) and allreduce_min; used by ONE thread at a time
//              (the gradient synchronizer's communication thread during a step);
//   ctrl_comm: broadcast, barrier, allreduce_sum_f64; used by the training thread.
// MPI is initialised with MPI_THREAD_MULTIPLE so both may be in flight at once.
#ifdef LANE_WITH_MPI
#include <mpi.h>

#include "train/dist/communicator.h"
#include "train/dist/ring_allreduce.h"

namespace lane::dist {

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator();  // MPI_Init_thread unless already initialised
  ~MpiCommunicator() override;  // MPI_Finalize if we initialised it
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(float* data, size_t count) override;
  void allreduce_mean(float* data, size_t count) override;
  void broadcast(void* data, size_t bytes, int root) override;
  void barrier() override;
  void allreduce_sum_f64(double* data, size_t count) override;
  uint64_t allreduce_min(uint64_t value) override;
  void set_timeout_seconds(double seconds) override;

  // The library's MPI_Allreduce (in place) on the ring communicator: the benchmark baseline.
  void mpi_allreduce_sum(float* data, size_t count);
  RingAllreduce& ring() { return ring_; }
  int thread_level() const { return thread_level_; }

 private:
  bool owns_mpi_ = false;
  int thread_level_ = 0;
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm ring_comm_ = MPI_COMM_NULL;
  MPI_Comm ctrl_comm_ = MPI_COMM_NULL;
  RingAllreduce ring_;
};

}  // namespace lane::dist
#endif
