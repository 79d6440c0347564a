#include "train/model/message_passing.h"

#include <vector>

#include "train/model/autocast_state.h"

namespace lane::model {
namespace F = torch::nn::functional;

namespace {

bool is_vertical(Direction d) { return d == Direction::kDown || d == Direction::kUp; }
bool is_reverse(Direction d) { return d == Direction::kUp || d == Direction::kLeft; }

}  // namespace

MessagePassingImpl::MessagePassingImpl(int channels, int kernel, bool update_first_slice)
    : kernel_(kernel), update_first_slice_(update_first_slice) {
  const int pad = kernel / 2;
  // Vertical passes slide a 1×k kernel along the row; horizontal passes a k×1 kernel along the column.
  auto row_conv = torch::nn::Conv2dOptions(channels, channels, {1, kernel}).padding({0, pad}).bias(false);
  auto col_conv = torch::nn::Conv2dOptions(channels, channels, {kernel, 1}).padding({pad, 0}).bias(false);
  conv_d = register_module("conv_d", torch::nn::Conv2d(row_conv));
  conv_u = register_module("conv_u", torch::nn::Conv2d(row_conv));
  conv_r = register_module("conv_r", torch::nn::Conv2d(col_conv));
  conv_l = register_module("conv_l", torch::nn::Conv2d(col_conv));
}

torch::nn::Conv2d& MessagePassingImpl::conv_for(Direction d) {
  switch (d) {
    case Direction::kDown: return conv_d;
    case Direction::kUp: return conv_u;
    case Direction::kRight: return conv_r;
    case Direction::kLeft: return conv_l;
  }
  return conv_d;
}

torch::Tensor MessagePassingImpl::slice_kernel(const torch::nn::Conv2d& conv, const torch::Tensor& x) const {
  const torch::Tensor w = conv->weight.flatten(2);  // [C, C, k]
  // Under autocast, conv1d would cast the kernel at every slice: a flattened weight is not a
  // leaf, so autocast's cast cache does not keep it (~200 casts per forward at 368x640). One
  // cast here instead; conv1d then finds it in its dtype already. fp32: the weight itself.
  const AutocastState autocast = autocast_state(x.device().type());
  return autocast.enabled && w.scalar_type() == torch::kFloat32 ? w.to(autocast.dtype) : w;
}

torch::Tensor MessagePassingImpl::recur(const torch::Tensor& slices, const torch::Tensor& weight,
                                        bool reverse) const {
  // Every step reads the freshly computed previous slice (a new tensor, never a view that is
  // later written), so autograd sees no in-place modification of saved inputs.
  std::vector<torch::Tensor> in = slices.unbind(0);
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<torch::Tensor> out(in.size());
  const int64_t pad = kernel_ / 2;
  auto step = [&](int64_t s, int64_t prev) {
    out[s] = in[s] + torch::relu(torch::conv1d(out[prev], weight, {}, 1, pad));
  };
  if (!reverse) {
    out[0] = in[0];
    for (int64_t s = 1; s < n; ++s) step(s, s - 1);
  } else {
    out[n - 1] = in[n - 1];
    const int64_t last = update_first_slice_ ? 0 : 1;
    for (int64_t s = n - 2; s >= last; --s) step(s, s + 1);
    if (!update_first_slice_ && n > 1) out[0] = in[0];
  }
  return torch::stack(out, 0);
}

torch::Tensor MessagePassingImpl::pass_fast(const torch::Tensor& x, Direction d) {
  const torch::Tensor w = slice_kernel(conv_for(d), x);  // [C, C, k]
  if (is_vertical(d)) {
    auto rows = x.permute({2, 0, 1, 3}).contiguous();  // [H, B, C, W]
    return recur(rows, w, is_reverse(d)).permute({1, 2, 0, 3}).contiguous();
  }
  auto cols = x.permute({3, 0, 1, 2}).contiguous();  // [W, B, C, H]
  return recur(cols, w, is_reverse(d)).permute({1, 2, 3, 0}).contiguous();
}

torch::Tensor MessagePassingImpl::forward_fast(const torch::Tensor& x) {
  // D and U share the row layout, R and L the column layout: three layout changes in total.
  const torch::Tensor wd = slice_kernel(conv_d, x), wu = slice_kernel(conv_u, x);
  const torch::Tensor wr = slice_kernel(conv_r, x), wl = slice_kernel(conv_l, x);
  auto rows = x.permute({2, 0, 1, 3}).contiguous();  // [H, B, C, W]
  rows = recur(rows, wd, false);
  rows = recur(rows, wu, true);
  auto cols = rows.permute({3, 1, 2, 0}).contiguous();  // [W, B, C, H]
  cols = recur(cols, wr, false);
  cols = recur(cols, wl, true);
  return cols.permute({1, 2, 3, 0}).contiguous();  // [B, C, H, W]
}

torch::Tensor MessagePassingImpl::pass_naive(const torch::Tensor& input, Direction d) {
  auto& conv = conv_for(d);
  const int64_t dim = is_vertical(d) ? 2 : 3;
  const int64_t n = input.size(dim);
  torch::Tensor x = input;
  auto update = [&](int64_t s, int64_t prev) {
    auto slice = x.narrow(dim, s, 1) + torch::relu(conv->forward(x.narrow(dim, prev, 1)));
    x = torch::cat({x.narrow(dim, 0, s), slice, x.narrow(dim, s + 1, n - s - 1)}, dim);
  };
  if (!is_reverse(d)) {
    for (int64_t s = 1; s < n; ++s) update(s, s - 1);
  } else {
    const int64_t last = update_first_slice_ ? 0 : 1;
    for (int64_t s = n - 2; s >= last; --s) update(s, s + 1);
  }
  return x;
}

torch::Tensor MessagePassingImpl::forward_naive(const torch::Tensor& x) {
  auto y = pass_naive(x, Direction::kDown);
  y = pass_naive(y, Direction::kUp);
  y = pass_naive(y, Direction::kRight);
  return pass_naive(y, Direction::kLeft);
}

torch::Tensor MessagePassingImpl::forward(const torch::Tensor& x) {
  return naive ? forward_naive(x) : forward_fast(x);
}

}  // namespace lane::model
