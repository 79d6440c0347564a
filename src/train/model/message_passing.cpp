#include "train/model/message_passing.h"

#include <algorithm>
#include <array>
#include <vector>

#include "train/model/autocast_state.h"

namespace lane::model {
namespace F = torch::nn::functional;

namespace {

bool is_vertical(Direction d) { return d == Direction::kDown || d == Direction::kUp; }
bool is_reverse(Direction d) { return d == Direction::kUp || d == Direction::kLeft; }

// The permutation of a [B, C, H, W] map into a slice buffer: rows ([H, B, C, W], or [H, B, W, C]
// channels last) for vertical passes, columns ([W, B, C, H] or [W, B, H, C]) for horizontal ones.
std::vector<int64_t> slice_dims(bool vertical, bool channels_last) {
  if (vertical) return channels_last ? std::vector<int64_t>{2, 0, 3, 1} : std::vector<int64_t>{2, 0, 1, 3};
  return channels_last ? std::vector<int64_t>{3, 0, 2, 1} : std::vector<int64_t>{3, 0, 1, 2};
}

// The permutation that undoes `dims`.
std::vector<int64_t> inverse(const std::vector<int64_t>& dims) {
  std::vector<int64_t> back(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) back[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
  return back;
}

// Slices [first, first + n) of a contiguous slice buffer as one [n·B, C, 1, L] batch of 2-D maps:
// NCHW for an [S, B, C, L] buffer, NHWC (a channels-last view, no copy) for [S, B, L, C].
torch::Tensor maps(const torch::Tensor& buffer, int64_t first, int64_t n, bool channels_last) {
  const auto block = buffer.narrow(0, first, n).flatten(0, 1);
  return (channels_last ? block.permute({0, 2, 1}) : block).unsqueeze(2);
}

// Which slices a pass updates and in what order: [lo, hi), ascending (each from slice s - 1) or,
// for a reverse pass, descending (each from slice s + 1).
struct SliceOrder {
  int64_t lo, hi;
  bool reverse;
  int64_t count() const { return std::max<int64_t>(hi - lo, 0); }
  int64_t at(int64_t i) const { return reverse ? hi - 1 - i : lo + i; }  // the i-th slice updated
  int64_t from() const { return reverse ? 1 : -1; }                      // offset of its source
};

// One pass as one autograd node: out[s] = in[s] + ReLU(conv(out[s ∓ 1])) in SliceOrder. The
// backward walks the slices the other way (each slice's gradient is complete before it feeds its
// source) and computes the kernel's gradient once, as one convolution over all updated slices,
// instead of one weight-gradient convolution and one accumulation per slice.
class SliceRecurrence : public torch::autograd::Function<SliceRecurrence> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& slices,
                               const torch::Tensor& weight, int64_t lo, int64_t hi, bool reverse,
                               bool channels_last) {
    const SliceOrder order{lo, hi, reverse};
    const std::vector<int64_t> stride{1, 1}, padding{0, weight.size(3) / 2};
    auto out = slices.clone(at::MemoryFormat::Contiguous);  // slices not updated stay the input's
    auto act = torch::empty_like(out);                       // ReLU(conv(source)) of each updated slice
    for (int64_t i = 0; i < order.count(); ++i) {
      const int64_t s = order.at(i);
      // Under autocast conv2d runs in the autocast dtype, like the layers around it.
      const auto pre = at::conv2d(maps(out, s + order.from(), 1, channels_last), weight, {}, stride, padding);
      auto a = maps(act, s, 1, channels_last);
      at::clamp_min_out(a, pre.to(a.scalar_type()), 0);  // the slices' dtype (a no-op in the trainer)
      maps(out, s, 1, channels_last).add_(a);
    }
    ctx->save_for_backward({out, act, weight});
    ctx->saved_data["lo"] = lo;
    ctx->saved_data["hi"] = hi;
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["channels_last"] = channels_last;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &out = saved[0], &act = saved[1], &weight = saved[2];
    const SliceOrder order{ctx->saved_data["lo"].toInt(), ctx->saved_data["hi"].toInt(),
                           ctx->saved_data["reverse"].toBool()};
    const bool cl = ctx->saved_data["channels_last"].toBool();
    const int64_t pad = weight.size(3) / 2, n = order.count();
    // g: the gradient of every slice of out, completed slice by slice; d: of every conv output.
    auto g = grads[0].clone(at::MemoryFormat::Contiguous);
    auto d = torch::empty_like(g);
    const auto dtype = weight.scalar_type();  // the dtype the convolutions ran in
    const std::vector<int64_t> stride{1, 1}, padding{0, pad}, dilation{1, 1}, no_padding{0, 0};
    for (int64_t i = n - 1; i >= 0; --i) {
      const int64_t s = order.at(i), src = s + order.from();
      auto ds = maps(d, s, 1, cl);
      at::threshold_backward_out(ds, maps(g, s, 1, cl), maps(act, s, 1, cl), 0);
      const auto input_grad = std::get<0>(at::convolution_backward(
          ds.to(dtype), maps(out, src, 1, cl).to(dtype), weight, c10::nullopt, stride, padding, dilation, false,
          no_padding, 1, {true, false, false}));
      maps(g, src, 1, cl).add_(input_grad);
    }
    torch::Tensor weight_grad = torch::zeros_like(weight);
    if (n > 0) {
      const int64_t first_src = order.lo + order.from();  // the source of slice lo; the rest follow in step
      weight_grad = std::get<1>(at::convolution_backward(
          maps(d, order.lo, n, cl).to(dtype), maps(out, first_src, n, cl).to(dtype), weight, c10::nullopt, stride,
          padding, dilation, false, no_padding, 1, {false, true, false}));
    }
    return {g, weight_grad, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

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

bool MessagePassingImpl::channels_last_slices(const torch::Tensor& x) const {
  return layout == SliceLayout::kAuto ? x.is_cuda() : layout == SliceLayout::kChannelsLast;
}

torch::Tensor MessagePassingImpl::slice_kernel(const torch::nn::Conv2d& conv, const torch::Tensor& x,
                                               bool channels_last) const {
  torch::Tensor w = conv->weight.flatten(2).unsqueeze(2);  // [C, C, 1, k] for either orientation
  if (channels_last) w = w.contiguous(at::MemoryFormat::ChannelsLast);
  // Under autocast, each slice's conv would cast a non-leaf kernel again (autocast's cache keeps
  // casts of leaves only: ~200 casts per forward at 368x640). One cast here instead.
  const AutocastState autocast = autocast_state(x.device().type());
  return autocast.enabled && w.scalar_type() == torch::kFloat32 ? w.to(autocast.dtype) : w;
}

torch::Tensor MessagePassingImpl::recur(const torch::Tensor& slices, const torch::Tensor& weight, bool reverse,
                                        bool channels_last) const {
  const int64_t n = slices.size(0);
  // Forward passes update slices 1..n-1; reverse passes n-2 down to 1, or to 0 with ORIG semantics.
  const SliceOrder order = reverse ? SliceOrder{update_first_slice_ ? 0 : 1, n - 1, true} : SliceOrder{1, n, false};
  return SliceRecurrence::apply(slices, weight, order.lo, order.hi, order.reverse, channels_last);
}

torch::Tensor MessagePassingImpl::pass_fast(const torch::Tensor& x, Direction d) {
  const bool cl = channels_last_slices(x);
  const auto dims = slice_dims(is_vertical(d), cl);
  const auto slices = recur(x.permute(dims).contiguous(), slice_kernel(conv_for(d), x, cl), is_reverse(d), cl);
  return slices.permute(inverse(dims)).contiguous();
}

torch::Tensor MessagePassingImpl::forward_fast(const torch::Tensor& x) {
  // D and U share the row buffer, R and L the column buffer: three layout changes in total (the
  // permutes between them are views; only contiguous() copies).
  const bool cl = channels_last_slices(x);
  const auto row_dims = slice_dims(true, cl), col_dims = slice_dims(false, cl);
  auto rows = x.permute(row_dims).contiguous();
  rows = recur(recur(rows, slice_kernel(conv_d, x, cl), false, cl), slice_kernel(conv_u, x, cl), true, cl);
  auto cols = rows.permute(inverse(row_dims)).permute(col_dims).contiguous();
  cols = recur(recur(cols, slice_kernel(conv_r, x, cl), false, cl), slice_kernel(conv_l, x, cl), true, cl);
  // [B, C, H, W], laid out as the slices were: NHWC for channels-last slices, NCHW otherwise.
  return cols.permute(inverse(col_dims)).contiguous(cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous);
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
