// NCCL backend for CUDA parameters. Compiled only when CMake found nccl.h, libnccl and the CUDA
// toolkit (LANE_WITH_NCCL); it runs only in a build against a CUDA libtorch (LANE_WITH_CUDA),
// since Debian's libtorch is CPU-only and never produces CUDA parameters.
//
// Ordering without host synchronisation (LANE_WITH_CUDA): the gradients are written by kernels
// on the compute stream (libtorch's current stream when the synchronizer was built). Before each
// reduction the communication thread records an event on the compute stream, which covers every
// gradient whose ready hook has fired, and the NCCL stream waits for it on the device; after the
// step's last reduction, finish() makes the compute stream wait for the NCCL stream, so the
// optimizer step reads reduced gradients. Without ATen's CUDA stream API (a toolkit-only build)
// the slice is ordered by device synchronisation instead.
//
// A dead peer: every reduction is preceded by the synchronizer's MPI negotiation of the ready
// prefix, which has the stall deadline and names the missing rank; a collective stuck on the GPU
// therefore surfaces there (or in wait()'s MPI allreduce) and the job aborts.
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#ifdef LANE_WITH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include "common/error.h"
#include "train/dist/torch/flat_allreducer.h"

namespace lane::dist {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string(what) + ": " + ncclGetErrorString(r));
}

class NcclFlatAllreducer final : public FlatAllreducer {
 public:
  NcclFlatAllreducer(Communicator& comm, int device) : device_(device) {
    // The device first: a rank without it fails here, before any collective.
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming), "cudaEventCreate");
#ifdef LANE_WITH_CUDA
    compute_stream_ = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
#endif
    // Rank 0 creates the NCCL id; our MPI communicator carries it to the others.
    ncclUniqueId id;
    if (comm.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof id, 0);
    check_nccl(ncclCommInitRank(&nccl_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  }
  ~NcclFlatAllreducer() override {
    if (nccl_ != nullptr) ncclCommDestroy(nccl_);
    cudaEventDestroy(reduced_);
    cudaEventDestroy(ready_);
    cudaStreamDestroy(stream_);
  }
  void allreduce_mean(torch::Tensor slice) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
#ifdef LANE_WITH_CUDA
    check_cuda(cudaEventRecord(ready_, compute_stream_), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(stream_, ready_, 0), "cudaStreamWaitEvent");
#else
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
    float* p = slice.data_ptr<float>();
    // ncclAvg (NCCL 2.10+) folds the 1/N of the mean into the reduction, as the CPU ring does.
    check_nccl(ncclAllReduce(p, p, static_cast<size_t>(slice.numel()), ncclFloat, ncclAvg, nccl_, stream_),
               "ncclAllReduce");
#ifndef LANE_WITH_CUDA
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
#endif
  }
  void finish() override {
#ifdef LANE_WITH_CUDA
    check_cuda(cudaEventRecord(reduced_, stream_), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(compute_stream_, reduced_, 0), "cudaStreamWaitEvent");
#endif
  }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  cudaStream_t compute_stream_ = nullptr;  // LANE_WITH_CUDA: the stream backward runs on
  cudaEvent_t ready_ = nullptr, reduced_ = nullptr;
  ncclComm_t nccl_ = nullptr;
};

}  // namespace

std::unique_ptr<FlatAllreducer> make_nccl_flat_allreducer(Communicator& comm, int cuda_device) {
  return std::make_unique<NcclFlatAllreducer>(comm, cuda_device);
}

}  // namespace lane::dist
