#include "train/dist/mpi_communicator.h"

#ifdef LANE_WITH_MPI
#include <algorithm>
#include <climits>
#include <string>

#include "common/error.h"
#include "train/dist/deadline.h"

namespace lane::dist {

MpiCommunicator::MpiCommunicator() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    // MULTIPLE: the communication thread runs the ring while the training thread may
    // broadcast or average metrics on the other communicator.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &thread_level_);
    owns_mpi_ = true;
  } else {
    MPI_Query_thread(&thread_level_);
  }
  if (thread_level_ < MPI_THREAD_SERIALIZED)
    throw Error("the MPI library provides thread level " + std::to_string(thread_level_) +
                "; scnn-train needs at least MPI_THREAD_SERIALIZED (OpenMPI 4.1 gives MULTIPLE)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_dup(MPI_COMM_WORLD, &ring_comm_);
  MPI_Comm_dup(MPI_COMM_WORLD, &ctrl_comm_);
  ring_.attach(ring_comm_, rank_, size_);
  ring_.set_timeout_seconds(timeout_seconds_);
}

MpiCommunicator::~MpiCommunicator() {
  MPI_Comm_free(&ring_comm_);
  MPI_Comm_free(&ctrl_comm_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_mpi_ && !finalized) MPI_Finalize();
}

void MpiCommunicator::set_timeout_seconds(double seconds) {
  if (!(seconds > 0)) throw UsageError("distributed timeout must be > 0 seconds");
  timeout_seconds_ = seconds;
  ring_.set_timeout_seconds(seconds);
}

void MpiCommunicator::allreduce_sum(float* data, size_t count) { ring_.allreduce_sum(data, count); }
void MpiCommunicator::allreduce_mean(float* data, size_t count) {
  ring_.allreduce(data, count, 1.0f / static_cast<float>(size_));
}

void MpiCommunicator::mpi_allreduce_sum(float* data, size_t count) {
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_FLOAT, MPI_SUM, ring_comm_);
}

void MpiCommunicator::broadcast(void* data, size_t bytes, int root) {
  if (root < 0 || root >= size_)
    throw Error("broadcast: root " + std::to_string(root) + " is not a rank (size " +
                std::to_string(size_) + ")");
  // MPI counts are int: send large buffers in pieces.
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    int piece = static_cast<int>(std::min<size_t>(bytes, INT_MAX / 2));
    MPI_Request req;
    MPI_Ibcast(p, piece, MPI_BYTE, root, ctrl_comm_, &req);
    wait_or_abort(&req, rank_, rank_ == root ? -1 : root, timeout_seconds_, "broadcast");
    p += piece;
    bytes -= piece;
  }
}

void MpiCommunicator::barrier() {
  MPI_Request req;
  MPI_Ibarrier(ctrl_comm_, &req);
  wait_or_abort(&req, rank_, -1, timeout_seconds_, "barrier");
}

void MpiCommunicator::allreduce_sum_f64(double* data, size_t count) {
  MPI_Request req;
  MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, ctrl_comm_, &req);
  wait_or_abort(&req, rank_, -1, timeout_seconds_, "metric allreduce");
}

uint64_t MpiCommunicator::allreduce_min(uint64_t value) {
  MPI_Request req;
  MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MIN, ring_comm_, &req);
  wait_or_abort(&req, rank_, -1, timeout_seconds_, "gradient readiness negotiation");
  return value;
}

}  // namespace lane::dist
#endif
