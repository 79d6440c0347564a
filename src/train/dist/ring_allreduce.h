#pragma once
// Our ring allreduce (sum or mean of floats, in place) over MPI point-to-point messages.
//
// Reduce-scatter then allgather, 2(N-1) steps, each rank sending 2(N-1)/N of the buffer.
// Every segment is cut into chunks, and chunk k of step s+1 is sent as soon as chunk k of
// step s has been reduced (or received), so transfer, reduction and the next step pipeline.
// Reduce-phase chunks land in a few persistent, cache-sized scratch buffers; allgather chunks
// land directly in place. Nothing is allocated per call once the largest size has been seen.
#ifdef LANE_WITH_MPI
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace lane::dist {

class RingAllreduce {
 public:
  static constexpr size_t kDefaultChunkBytes = 512 * 1024;  // measured best of 128 KiB..1 MiB (docs/BENCHMARKS.md)
  static constexpr int kScratchBuffers = 4;

  void attach(MPI_Comm comm, int rank, int size);
  void set_chunk_bytes(size_t bytes);
  void set_timeout_seconds(double s) { timeout_s_ = s; }
  void allreduce_sum(float* data, size_t count) { allreduce(data, count, 1.0f); }
  // Sum times `scale`, applied in the last reduce-scatter step as each chunk's sum completes,
  // so a mean (scale 1/N) costs no extra pass over the buffer.
  void allreduce(float* data, size_t count, float scale);

 private:
  struct Item {  // one chunk received at one step
    int step;
    size_t offset;  // elements from data
    size_t count;
  };
  void plan(size_t count);
  void post_recv(size_t q, float* data);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, left_ = 0, right_ = 0;
  double timeout_s_ = 30.0;
  size_t chunk_elems_ = kDefaultChunkBytes / sizeof(float);
  // Persistent state (grows to the largest call, never shrinks).
  std::vector<float> scratch_;           // kScratchBuffers * chunk_elems_
  std::vector<Item> items_;              // receive schedule, in order
  std::vector<size_t> step_begin_;       // first item of each step
  std::vector<MPI_Request> recv_req_;    // per item
  std::vector<MPI_Request> send_req_;    // per item (the send it triggers, or step 0's)
  std::vector<size_t> seg_offset_;       // per segment
  std::vector<size_t> seg_count_;
  size_t planned_count_ = static_cast<size_t>(-1);
};

}  // namespace lane::dist
#endif
