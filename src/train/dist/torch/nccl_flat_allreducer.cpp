// NCCL backend for CUDA parameters. Compiled only when CMake found nccl.h, libnccl and the CUDA
// toolkit (LANE_WITH_NCCL); built and linked wherever the toolkit is installed, but only run
// on a GPU machine with a CUDA build of libtorch (Debian's is CPU-only).
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

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
    // Rank 0 creates the NCCL id; our MPI communicator carries it to the others.
    ncclUniqueId id;
    if (comm.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof id, 0);
    check_nccl(ncclCommInitRank(&nccl_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  }
  ~NcclFlatAllreducer() override {
    ncclCommDestroy(nccl_);
    cudaStreamDestroy(stream_);
  }
  void allreduce_mean(torch::Tensor slice) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    // The hooks filled the slice on torch's stream; without ATen's CUDA headers (Debian's
    // libtorch is CPU-only) the portable way to order after it is a device synchronise.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    float* p = slice.data_ptr<float>();
    check_nccl(ncclAllReduce(p, p, static_cast<size_t>(slice.numel()), ncclFloat, ncclAvg, nccl_,
                             stream_),
               "ncclAllReduce");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t nccl_ = nullptr;
};

}  // namespace

std::unique_ptr<FlatAllreducer> make_nccl_flat_allreducer(Communicator& comm, int cuda_device) {
  return std::make_unique<NcclFlatAllreducer>(comm, cuda_device);
}

}  // namespace lane::dist
