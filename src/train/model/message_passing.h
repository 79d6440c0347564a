#pragma once
// SCNN message passing (Pan et al.): four sequential slice-by-slice passes, D (top→bottom),
// U (bottom→top), R (left→right), L (right→left). Each slice receives
// ReLU(conv(previous, already updated slice)) added to itself; one conv per direction is shared
// by all slices, no bias. Included only by model/trainer/bench/test code (it pulls in libtorch).
#include <torch/torch.h>

namespace lane::model {

enum class Direction { kDown, kUp, kRight, kLeft };

// How the fast path lays out the slices of a pass: [S, B, C, L] (channels first, the CPU's) or
// [S, B, L, C] (channels last: every slice is an NHWC [B, C, 1, L] view, which cuDNN convolves
// without converting the layout). kAuto: channels last on CUDA, channels first elsewhere.
enum class SliceLayout { kAuto, kChannelsFirst, kChannelsLast };

class MessagePassingImpl : public torch::nn::Module {
 public:
  MessagePassingImpl(int channels, int kernel, bool update_first_slice);

  // x: [B, C, H, W] → same shape. Uses `naive` to pick the implementation.
  torch::Tensor forward(const torch::Tensor& x);

  // Fast path: one permute per orientation so that the slices of a pass are one contiguous
  // buffer; each pass is one autograd node (SliceRecurrence in the .cpp) whose backward runs the
  // recurrence backwards and computes the kernel's gradient in one convolution over all slices.
  torch::Tensor forward_fast(const torch::Tensor& x);
  // Straightforward reference: narrow the slice, conv2d, cat the map back together at every
  // slice (O(slices²) copying). Used by the equality tests and as the benchmark baseline.
  torch::Tensor forward_naive(const torch::Tensor& x);

  // One direction only, either implementation (for the direction tests).
  torch::Tensor pass_fast(const torch::Tensor& x, Direction d);
  torch::Tensor pass_naive(const torch::Tensor& x, Direction d);

  bool naive = false;  // route forward() through forward_naive (benchmark baseline)
  SliceLayout layout = SliceLayout::kAuto;

  torch::nn::Conv2d conv_d{nullptr}, conv_u{nullptr}, conv_r{nullptr}, conv_l{nullptr};

 private:
  torch::nn::Conv2d& conv_for(Direction d);
  bool channels_last_slices(const torch::Tensor& x) const;
  // conv's weight as the [C, C, 1, k] kernel of the slices of x, in the slices' layout: cast once
  // to the autocast dtype when autocast is on for x's device (fp32: the weight's values).
  torch::Tensor slice_kernel(const torch::nn::Conv2d& conv, const torch::Tensor& x, bool channels_last) const;
  // The recurrence over dim 0 of a contiguous slice buffer ([S, B, C, L], or [S, B, L, C] when
  // channels_last) with a [C, C, 1, k] kernel.
  torch::Tensor recur(const torch::Tensor& slices, const torch::Tensor& weight, bool reverse,
                      bool channels_last) const;

  int kernel_;
  bool update_first_slice_;
};
TORCH_MODULE(MessagePassing);

}  // namespace lane::model
