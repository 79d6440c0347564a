#pragma once
// What the gradient synchronizer reduces a fused slice with: our MPI ring for CPU tensors,
// NCCL for CUDA tensors (LANE_WITH_NCCL builds only). Private to lane_train_dist_torch.
#include <torch/torch.h>

#include <memory>

#include "train/dist/communicator.h"

namespace lane::dist {

class FlatAllreducer {
 public:
  virtual ~FlatAllreducer() = default;
  // In place mean over ranks of a contiguous float32 slice of the fusion buffer.
  virtual void allreduce_mean(torch::Tensor slice) = 0;
  // After the last slice of a step, on the training thread: later work on the compute stream
  // must see the reduced values (CUDA: the compute stream waits for the communication stream;
  // the host does not). The CPU ring is synchronous: nothing to do.
  virtual void finish() {}
};

std::unique_ptr<FlatAllreducer> make_cpu_flat_allreducer(Communicator& comm);
#ifdef LANE_WITH_NCCL
// Throws lane::Error (naming the CUDA or NCCL call) when the device is missing or unusable.
std::unique_ptr<FlatAllreducer> make_nccl_flat_allreducer(Communicator& comm, int cuda_device);
#endif

}  // namespace lane::dist
