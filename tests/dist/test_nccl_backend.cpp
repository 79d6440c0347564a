// Built only with the NCCL backend (LANE_WITH_NCCL). On a machine without a GPU the backend must
// refuse with an error that names the failing CUDA call, not crash or hang; the reduction itself
// needs a GPU and a CUDA build of libtorch.
#include <cuda_runtime.h>

#include "catch_torch.h"
#include <string>

#include "common/error.h"
#include "train/dist/communicator.h"
#include "train/dist/torch/flat_allreducer.h"

TEST_CASE("without a usable GPU the NCCL backend fails with an error naming the CUDA call", "[dist][fast]") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    WARN("this machine has " << devices << " GPU(s): the no-GPU error path is not exercised here");
    return;
  }
  auto comm = lane::dist::create_single_process_communicator();
  std::string error;
  bool created = false;
  try {
    created = lane::dist::make_nccl_flat_allreducer(*comm, 0) != nullptr;
  } catch (const lane::Error& e) {
    error = e.what();
  }
  INFO("error: " << error);
  CHECK_FALSE(created);
  CHECK(error.find("cudaSetDevice") != std::string::npos);
}
