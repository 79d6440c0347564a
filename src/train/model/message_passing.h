#pragma once
// SCNN message passing (Pan et al.): four sequential slice-by-slice passes, D (top→bottom),
// U (bottom→top), R (left→right), L (right→left). Each slice receives
// ReLU(conv(previous, already updated slice)) added to itself; one conv per direction is shared
// by all slices, no bias. Included only by model/trainer/bench/test code (it pulls in libtorch).
#include <torch/torch.h>

namespace lane::model {

enum class Direction { kDown, kUp, kRight, kLeft };

class MessagePassingImpl : public torch::nn::Module {
 public:
  MessagePassingImpl(int channels, int kernel, bool update_first_slice);

  // x: [B, C, H, W] → same shape. Uses `naive` to pick the implementation.
  torch::Tensor forward(const torch::Tensor& x);

  // Fast path: one permute per orientation so that every slice is a contiguous [B, C, L]
  // block, conv1d on those blocks, one stack per pass. No per-slice copies of the map.
  torch::Tensor forward_fast(const torch::Tensor& x);
  // Straightforward reference: narrow the slice, conv2d, cat the map back together at every
  // slice (O(slices²) copying). Used by the equality tests and as the benchmark baseline.
  torch::Tensor forward_naive(const torch::Tensor& x);

  // One direction only, either implementation (for the direction tests).
  torch::Tensor pass_fast(const torch::Tensor& x, Direction d);
  torch::Tensor pass_naive(const torch::Tensor& x, Direction d);

  bool naive = false;  // route forward() through forward_naive (benchmark baseline)

  torch::nn::Conv2d conv_d{nullptr}, conv_u{nullptr}, conv_r{nullptr}, conv_l{nullptr};

 private:
  torch::nn::Conv2d& conv_for(Direction d);
  // conv's weight as the [C, C, k] kernel of the slices of x: cast once to the autocast dtype
  // when autocast is on for x's device (fp32: the weight itself).
  torch::Tensor slice_kernel(const torch::nn::Conv2d& conv, const torch::Tensor& x) const;
  // Recurrence over dim 0 of a contiguous [S, B, C, L] tensor with a [C, C, k] kernel.
  torch::Tensor recur(const torch::Tensor& slices, const torch::Tensor& weight, bool reverse) const;

  int kernel_;
  bool update_first_slice_;
};
TORCH_MODULE(MessagePassing);

}  // namespace lane::model
