#pragma once
// Batches of a TusimpleLoader on the training device. CPU: the loader's batches as they are.
// CUDA (LANE_WITH_CUDA builds): each host batch is pinned and copied with non-blocking
// transfers on a side stream, and the next batch is loaded and its copy issued before the
// current one is handed out, so that decoding and the copy overlap the step running on the GPU;
// the compute stream waits for the copy on the device (an event), never the host.
// Include only from .cpp files: it pulls in <torch/torch.h>.
#include <memory>
#include <optional>

#include <torch/torch.h>

#include "train/data/tensors/loader.h"

namespace lane::data {

struct DeviceBatch {
  Batch batch;            // images, seg, exist on the device; labels as loaded
  torch::Tensor host_seg; // the segmentation target on the host (for host-side statistics)
};

class DeviceLoader {
 public:
  DeviceLoader(TusimpleLoader& loader, torch::Device device);
  ~DeviceLoader();
  DeviceLoader(const DeviceLoader&) = delete;
  DeviceLoader& operator=(const DeviceLoader&) = delete;

  void start_epoch(int epoch, size_t skip_batches = 0);
  std::optional<DeviceBatch> next();  // std::nullopt at the end of the epoch

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lane::data
