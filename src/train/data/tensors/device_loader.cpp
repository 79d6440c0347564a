#include "train/data/tensors/device_loader.h"

#include "common/error.h"

#ifdef LANE_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace lane::data {

class DeviceLoader::Impl {
 public:
  Impl(TusimpleLoader& loader, torch::Device device) : loader_(loader), device_(device) {
    if (device_.is_cuda()) {
#ifdef LANE_WITH_CUDA
      copy_stream_.emplace(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device_.index()));
#else
      throw Error("DeviceLoader: a CUDA device in a build without CUDA");
#endif
    } else if (!device_.is_cpu()) {
      throw Error("DeviceLoader: only CPU and CUDA devices are supported");
    }
  }

  void start_epoch(int epoch, size_t skip) {
#ifdef LANE_WITH_CUDA
    pending_.reset();  // a batch prefetched for the previous epoch is dropped
#endif
    loader_.start_epoch(epoch, skip);
  }

  std::optional<DeviceBatch> next() {
    if (device_.is_cpu()) {
      auto b = loader_.next();
      if (!b) return std::nullopt;
      DeviceBatch out{std::move(*b), torch::Tensor()};
      out.host_seg = out.batch.seg;
      return out;
    }
#ifdef LANE_WITH_CUDA
    if (!pending_) issue_next();  // first batch of the epoch
    if (!pending_) return std::nullopt;
    std::unique_ptr<Pending> current = std::move(pending_);
    issue_next();  // load and start copying the next batch while the GPU works on this one
    // The compute stream waits for this batch's copy on the device; the tensors are marked as
    // used on it so that the caching allocator does not hand their memory back to the copy
    // stream while the step still reads them.
    const auto compute = c10::cuda::getCurrentCUDAStream(device_.index());
    current->copied.block(compute);
    current->out.batch.images.record_stream(compute);
    current->out.batch.seg.record_stream(compute);
    current->out.batch.exist.record_stream(compute);
    return std::move(current->out);
#else
    return std::nullopt;
#endif
  }

 private:
  TusimpleLoader& loader_;
  torch::Device device_;
#ifdef LANE_WITH_CUDA
  struct Pending {
    DeviceBatch out;
    at::cuda::CUDAEvent copied;
  };
  void issue_next() {
    auto b = loader_.next();
    if (!b) return;
    auto p = std::make_unique<Pending>();
    c10::cuda::CUDAStreamGuard on_copy_stream(*copy_stream_);
    const auto images = b->images.pin_memory(), seg = b->seg.pin_memory(), exist = b->exist.pin_memory();
    p->out.host_seg = b->seg;
    p->out.batch.labels = std::move(b->labels);
    p->out.batch.images = images.to(device_, /*non_blocking=*/true);
    p->out.batch.seg = seg.to(device_, /*non_blocking=*/true);
    p->out.batch.exist = exist.to(device_, /*non_blocking=*/true);
    p->copied.record(*copy_stream_);
    pending_ = std::move(p);
  }
  std::optional<c10::cuda::CUDAStream> copy_stream_;
  std::unique_ptr<Pending> pending_;
#endif
};

DeviceLoader::DeviceLoader(TusimpleLoader& loader, torch::Device device)
    : impl_(std::make_unique<Impl>(loader, device)) {}
DeviceLoader::~DeviceLoader() = default;
void DeviceLoader::start_epoch(int epoch, size_t skip_batches) { impl_->start_epoch(epoch, skip_batches); }
std::optional<DeviceBatch> DeviceLoader::next() { return impl_->next(); }

}  // namespace lane::data
