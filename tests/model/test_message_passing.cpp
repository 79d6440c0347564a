// Message passing: each direction carries information the right way, and the fast
// implementation equals the slice-by-slice reference in values and gradients.
#include "catch_torch.h"

#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/version.h>

#include <vector>

#include "train/model/message_passing.h"

using lane::model::Direction;
using lane::model::MessagePassing;
using lane::model::SliceLayout;

namespace {

// Positive weights so that a perturbation always survives the ReLU somewhere downstream.
MessagePassing make(bool update_first_slice, int channels = 4) {
  torch::manual_seed(3);
  MessagePassing mp(channels, 9, update_first_slice);
  torch::NoGradGuard g;
  for (auto& p : mp->parameters()) p.uniform_(0.01, 0.1);
  return mp;
}

// Which slices (along dim) differ between two outputs.
std::vector<bool> changed(const torch::Tensor& a, const torch::Tensor& b, int64_t dim) {
  auto diff = (a - b).abs().transpose(0, dim).reshape({a.size(dim), -1}).amax(1);
  std::vector<bool> out;
  for (int64_t i = 0; i < diff.size(0); ++i) out.push_back(diff[i].item<float>() > 0);
  return out;
}

// CPU autocast in bf16 for the object's lifetime (what the trainer's AutocastScope does).
class CpuAutocastBf16 {
 public:
  CpuAutocastBf16() { set(true, torch::kBFloat16); at::autocast::increment_nesting(); }
  ~CpuAutocastBf16() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set(false, torch::kBFloat16);
  }

 private:
  static void set(bool on, torch::ScalarType dtype) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(torch::kCPU, on);
    at::autocast::set_autocast_dtype(torch::kCPU, dtype);
#else
    at::autocast::set_cpu_enabled(on);
    at::autocast::set_autocast_cpu_dtype(dtype);
#endif
  }
};

// Counts, on this thread while alive, the casts (aten::_to_copy, what Tensor::to and autocast's
// casts run) of a tensor of exactly `shape`.
class CastCounter {
 public:
  explicit CastCounter(std::vector<int64_t> shape) {
    shape_() = std::move(shape);
    count_() = 0;
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&CastCounter::on_start).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
  }
  ~CastCounter() { at::removeCallback(handle_); }
  int count() const { return count_(); }

 private:
  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
    if (std::string(fn.name()) != "aten::_to_copy" || fn.inputs().empty()) return nullptr;
    const auto& in = fn.inputs()[0];
    if (in.isTensor() && in.toTensor().sizes().vec() == shape_()) ++count_();
    return nullptr;
  }
  static std::vector<int64_t>& shape_() {
    thread_local std::vector<int64_t> s;
    return s;
  }
  static int& count_() {
    thread_local int c = 0;
    return c;
  }
  at::CallbackHandle handle_;
};

}  // namespace

TEST_CASE("under autocast the message-passing kernels are cast once per forward, not once per slice", "[model][fast]") {
  // 6 channels, kernel 3, batch 2, a 7x9 map: a slice is [2, 6, 1, 7 or 9], a kernel [6, 6, 1, 3], so
  // the counter sees the kernels' casts only. Before the fix each of the 4 * 8 slice convolutions
  // cast its (flattened, hence uncached) kernel again: 32 casts instead of 4.
  torch::manual_seed(5);
  MessagePassing mp(6, 3, true);
  const auto x = torch::randn({2, 6, 7, 9});
  {
    CpuAutocastBf16 autocast;
    CastCounter kernel_casts({6, 6, 1, 3});
    const auto y = mp->forward(x);
    CHECK(kernel_casts.count() == 4);  // one per direction
    y.sum().backward();
    CHECK(y.scalar_type() == torch::kFloat32);  // slice + relu(bf16 conv) promotes to float32
  }
  for (auto& p : mp->parameters()) REQUIRE(p.grad().defined());
  // fp32 (no autocast) is untouched by the change: the weights themselves, no cast at all.
  CastCounter fp32_casts({6, 6, 1, 3});
  const auto y32 = mp->forward(x);
  CHECK(fp32_casts.count() == 0);
  CHECK(torch::allclose(y32, mp->forward_naive(x), 1e-5, 1e-5));
}

TEST_CASE("each message-passing direction propagates only the right way", "[model][fast]") {
  auto mp = make(true);
  torch::NoGradGuard g;
  auto x = torch::rand({1, 4, 10, 12});
  struct Case { Direction d; int64_t dim; int64_t at; bool forward; };
  for (const auto& c : {Case{Direction::kDown, 2, 4, true}, Case{Direction::kUp, 2, 4, false},
                        Case{Direction::kRight, 3, 5, true}, Case{Direction::kLeft, 3, 5, false}}) {
    auto y = x.clone();
    y.narrow(c.dim, c.at, 1).add_(1.0);  // perturb one row (D/U) or one column (R/L)
    for (int variant = 0; variant < 3; ++variant) {  // naive, fast channels first, fast channels last
      const bool naive = variant == 0;
      mp->layout = variant == 2 ? SliceLayout::kChannelsLast : SliceLayout::kChannelsFirst;
      auto a = naive ? mp->pass_naive(x, c.d) : mp->pass_fast(x, c.d);
      auto b = naive ? mp->pass_naive(y, c.d) : mp->pass_fast(y, c.d);
      auto ch = changed(a, b, c.dim);
      INFO("direction " << static_cast<int>(c.d) << " variant " << variant);
      for (int64_t i = 0; i < static_cast<int64_t>(ch.size()); ++i) {
        const bool downstream = c.forward ? i >= c.at : i <= c.at;
        CHECK(ch[i] == downstream);
      }
    }
  }
}

TEST_CASE("U and L passes update slice 0 with ORIG semantics and leave it with PAD semantics", "[model][fast]") {
  torch::NoGradGuard g;
  auto x = torch::rand({1, 4, 6, 7});
  for (bool orig : {true, false}) {
    auto mp = make(orig);
    for (auto [d, dim] : {std::pair{Direction::kUp, int64_t{2}}, std::pair{Direction::kLeft, int64_t{3}}}) {
      for (int variant = 0; variant < 3; ++variant) {  // naive, fast channels first, fast channels last
        const bool naive = variant == 0;
        mp->layout = variant == 2 ? SliceLayout::kChannelsLast : SliceLayout::kChannelsFirst;
        auto y = naive ? mp->pass_naive(x, d) : mp->pass_fast(x, d);
        const bool first_same = y.narrow(dim, 0, 1).equal(x.narrow(dim, 0, 1));
        CHECK(first_same == !orig);
        CHECK_FALSE(y.narrow(dim, 1, 1).equal(x.narrow(dim, 1, 1)));
      }
    }
  }
}

TEST_CASE("fast message passing equals the slice-by-slice reference in forward and gradients, in both slice layouts",
          "[model][slow]") {
  for (auto layout : {SliceLayout::kChannelsFirst, SliceLayout::kChannelsLast}) {
    for (bool orig : {true, false}) {
      INFO("layout " << static_cast<int>(layout) << " orig " << orig);
      torch::manual_seed(4);
      MessagePassing mp(8, 9, orig);  // default (Kaiming-uniform) weights: ReLU active and inactive
      mp->layout = layout;
      auto x = torch::randn({2, 8, 9, 13});
      auto x1 = x.clone().requires_grad_(true), x2 = x.clone().requires_grad_(true);
      auto gout = torch::randn({2, 8, 9, 13});

      auto y1 = mp->forward_fast(x1);
      (y1 * gout).sum().backward();
      std::vector<torch::Tensor> g1;
      for (auto& p : mp->parameters()) g1.push_back(p.grad().clone()), p.mutable_grad().zero_();

      auto y2 = mp->forward_naive(x2);
      (y2 * gout).sum().backward();
      CHECK(torch::allclose(y1, y2, 1e-5, 1e-5));
      CHECK(torch::allclose(x1.grad(), x2.grad(), 1e-5, 1e-5));
      auto params = mp->parameters();
      for (size_t i = 0; i < params.size(); ++i) {
        INFO("parameter " << i);
        CHECK(torch::allclose(g1[i], params[i].grad(), 1e-4, 1e-5));
      }
      CHECK(y1.sub(x).abs().max().item<float>() > 0.1);  // the passes did change the map
      CHECK(y1.is_contiguous(layout == SliceLayout::kChannelsLast ? at::MemoryFormat::ChannelsLast
                                                                   : at::MemoryFormat::Contiguous));
    }
  }
}

TEST_CASE("one pass in either slice layout equals the slice-by-slice reference, single slices included",
          "[model][fast]") {
  for (auto layout : {SliceLayout::kChannelsFirst, SliceLayout::kChannelsLast}) {
    for (bool orig : {true, false}) {
      torch::manual_seed(6);
      MessagePassing mp(5, 3, orig);
      mp->layout = layout;
      for (auto d : {Direction::kDown, Direction::kUp, Direction::kRight, Direction::kLeft}) {
        // 1 row / 1 column: nothing to update; 2: one update; 6x7: several.
        for (auto shape : {std::vector<int64_t>{3, 5, 1, 1}, std::vector<int64_t>{3, 5, 2, 2},
                           std::vector<int64_t>{3, 5, 6, 7}}) {
          INFO("layout " << static_cast<int>(layout) << " orig " << orig << " direction " << static_cast<int>(d)
                         << " map " << shape[2] << "x" << shape[3]);
          const auto x = torch::randn(shape);
          const auto gout = torch::randn(shape);
          auto x1 = x.clone().requires_grad_(true), x2 = x.clone().requires_grad_(true);
          (mp->pass_fast(x1, d) * gout).sum().backward();
          std::vector<torch::Tensor> g1;
          for (auto& p : mp->parameters()) g1.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p)),
                                           p.mutable_grad() = torch::Tensor();
          const auto y1 = mp->pass_fast(x, d).detach();
          (mp->pass_naive(x2, d) * gout).sum().backward();
          CHECK(torch::allclose(y1, mp->pass_naive(x, d).detach(), 1e-5, 1e-5));
          CHECK(torch::allclose(x1.grad(), x2.grad(), 1e-5, 1e-5));
          auto params = mp->parameters();
          for (size_t i = 0; i < params.size(); ++i) {
            const auto g2 = params[i].grad().defined() ? params[i].grad() : torch::zeros_like(params[i]);
            CHECK(torch::allclose(g1[i], g2, 1e-4, 1e-5));
            params[i].mutable_grad() = torch::Tensor();
          }
        }
      }
    }
  }
}
