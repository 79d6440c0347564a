// GradientSynchronizer: Horovod-style fusion + overlap, without Horovod's coordinator.
//
// Parameters get fixed slots in one persistent fusion buffer, in reverse parameter order
// (the order backward produces gradients). A post-hook on each parameter's AccumulateGrad node
// marks the slot ready. A communication thread, the only one touching the ring during a step,
// repeatedly agrees with the other ranks on the ready prefix (one tiny MIN allreduce: every
// rank then reduces the same range) and reduces up to fusion_threshold bytes of it in place to
// the mean (the ring folds 1/N into its last reduction step) — while backward goes on.
//
// Zero copy: after a parameter's first reduction its .grad *is* its slot (a tensor over the
// slot's memory, like PyTorch DDP's gradient_as_bucket_view). zero_grad_in_place() zeroes it in
// place (libtorch 2.x's Optimizer::zero_grad() would reset it to undefined) and AccumulateGrad
// adds into it in place, so gradients are fused where autograd writes them and averaged where
// the optimizer reads them: no pack, no unpack. Should .grad be anything else (the first step,
// or code that replaced it), the hook copies it into the slot and the view is installed after
// the reduction.
#include "train/dist/gradient_sync.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "common/error.h"
#include "train/dist/torch/flat_allreducer.h"

namespace lane::dist {

namespace {

class CpuFlatAllreducer final : public FlatAllreducer {
 public:
  explicit CpuFlatAllreducer(Communicator& comm) : comm_(comm) {}
  void allreduce_mean(torch::Tensor slice) override {
    comm_.allreduce_mean(slice.data_ptr<float>(), static_cast<size_t>(slice.numel()));
  }

 private:
  Communicator& comm_;
};

}  // namespace

std::unique_ptr<FlatAllreducer> make_cpu_flat_allreducer(Communicator& comm) {
  return std::make_unique<CpuFlatAllreducer>(comm);
}

class GradientSynchronizer::Impl {
 public:
  Impl(Communicator& comm, std::vector<torch::Tensor> parameters, size_t threshold)
      : comm_(comm), threshold_bytes_(threshold) {
    for (auto& p : parameters)
      if (p.requires_grad()) params_.push_back(p);
    if (params_.empty()) throw Error("GradientSynchronizer: no parameter requires a gradient");
    const auto device = params_.front().device();
    for (auto& p : params_) {
      if (p.scalar_type() != torch::kFloat32)
        throw Error("GradientSynchronizer: only float32 parameters are supported");
      if (p.device() != device)
        throw Error("GradientSynchronizer: all parameters must be on one device");
    }
    if (comm_.size() == 1) return;  // nothing to average: prepare()/wait() are no-ops

    // Slot i holds parameter n-1-i.
    const size_t n = params_.size();
    offset_.resize(n + 1, 0);
    for (size_t i = 0; i < n; ++i) offset_[i + 1] = offset_[i] + param_of(i).numel();
    flat_ = torch::zeros({static_cast<int64_t>(offset_[n])},
                         torch::TensorOptions().dtype(torch::kFloat32).device(device));
    ready_.assign(n, 0);
    produced_.assign(n, 0);
    copied_.assign(n, 0);
    stash_.resize(n);

    if (device.is_cuda()) {
#ifdef LANE_WITH_NCCL
      reducer_ = make_nccl_flat_allreducer(comm_, device.index());
#else
      throw Error("GradientSynchronizer: CUDA parameters need a build with NCCL (LANE_WITH_NCCL)");
#endif
    } else {
      reducer_ = make_cpu_flat_allreducer(comm_);
    }

    for (size_t i = 0; i < n; ++i) {
      auto acc = torch::autograd::impl::grad_accumulator(param_of(i));
      if (!acc) throw Error("GradientSynchronizer: a parameter is not a leaf tensor");
      hook_keys_.push_back(acc->add_post_hook(std::make_unique<ReadyHook>(this, i)));
      accumulators_.push_back(std::move(acc));  // the variable holds only a weak pointer
    }
    comm_thread_ = std::thread([this] { communication_loop(); });
  }

  ~Impl() {
    if (comm_thread_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
      }
      cv_.notify_all();
      comm_thread_.join();
    }
    for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hook_keys_[i]);
  }

  void prepare() {
    if (comm_.size() == 1) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (armed_) throw Error("GradientSynchronizer::prepare() called twice without wait()");
    std::fill(ready_.begin(), ready_.end(), 0);
    std::fill(produced_.begin(), produced_.end(), 0);
    std::fill(copied_.begin(), copied_.end(), 0);
    ready_prefix_ = 0;
    done_ = 0;
    fused_ = 0;
    armed_ = true;
  }

  void wait() {
    if (comm_.size() == 1) return;
    auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mu_);
    if (!armed_) throw Error("GradientSynchronizer::wait() without prepare()");
    // backward() has returned: a slot still not ready belongs to a parameter that got no
    // gradient this step. It takes part as zeros so that every rank reduces the same ranges;
    // when the slot is that parameter's .grad, its contents are kept aside first.
    for (size_t i = 0; i < ready_.size(); ++i)
      if (!ready_[i]) {
        if (grad_is_slot(i)) stash_[i] = slot(i).clone();
        slot(i).zero_();
        ready_[i] = true;
      }
    advance_prefix();
    cv_.notify_all();
    cv_.wait(lock, [&] { return done_ == ready_.size() || error_; });
    armed_ = false;
    if (error_) std::rethrow_exception(error_);
    lock.unlock();
    reducer_->finish();
    // A parameter without a gradient here receives the average of the ranks that had one;
    // one that no rank used keeps its .grad untouched, exactly as in single-process training.
    std::vector<double> producers(produced_.begin(), produced_.end());
    comm_.allreduce_sum_f64(producers.data(), producers.size());
    for (size_t i = 0; i < produced_.size(); ++i) {
      if (produced_[i]) continue;
      auto& p = param_of(i);
      if (producers[i] > 0) {
        if (!grad_is_slot(i)) p.mutable_grad() = grad_over_slot(i);  // the mean, zero copy from now on
      } else if (stash_[i].defined()) {
        slot(i).copy_(stash_[i]);  // no rank used it: .grad as it was
      }
      stash_[i] = torch::Tensor();
    }
    stats_.fused_allreduces = fused_;
    stats_.copied_gradients = static_cast<size_t>(std::count(copied_.begin(), copied_.end(), 1));
    stats_.exposed_wait_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  StepStats stats() const { return stats_; }

 private:
  // Runs on the backward thread after AccumulateGrad wrote .grad.
  class ReadyHook final : public torch::autograd::FunctionPostHook {
   public:
    ReadyHook(Impl* impl, size_t slot) : impl_(impl), slot_(slot) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
      impl_->on_gradient_ready(slot_);
      return outputs;
    }

   private:
    Impl* impl_;
    size_t slot_;
  };

  torch::Tensor& param_of(size_t slot) { return params_[params_.size() - 1 - slot]; }
  torch::Tensor slot(size_t i) {
    return flat_.narrow(0, static_cast<int64_t>(offset_[i]),
                        static_cast<int64_t>(offset_[i + 1] - offset_[i]));
  }
  float* slot_data(size_t i) { return flat_.data_ptr<float>() + offset_[i]; }
  // Whether parameter i's .grad is its slot (the zero-copy state).
  bool grad_is_slot(size_t i) {
    const auto& g = param_of(i).grad();
    return g.defined() && g.data_ptr() == slot_data(i) && g.is_contiguous();
  }
  // Slot i shaped like the parameter, sharing flat_'s storage (and its reference count: the
  // gradients stay valid after the synchronizer is gone). detach() makes it a plain tensor, not
  // an autograd view of flat_, so Optimizer::zero_grad() may detach_() and zero_() it in place.
  torch::Tensor grad_over_slot(size_t i) { return slot(i).view(param_of(i).sizes()).detach(); }

  void on_gradient_ready(size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!armed_ || ready_[i]) return;  // a backward outside prepare()/wait() is not ours
    }
    // AccumulateGrad wrote straight into the slot when .grad is the slot; otherwise copy.
    const bool copy = !grad_is_slot(i);
    if (copy) slot(i).copy_(param_of(i).grad().reshape({-1}));
    std::lock_guard<std::mutex> lock(mu_);
    ready_[i] = true;
    produced_[i] = true;
    copied_[i] = copy;
    advance_prefix();
    cv_.notify_all();
  }

  void advance_prefix() {  // mu_ held
    while (ready_prefix_ < ready_.size() && ready_[ready_prefix_]) ++ready_prefix_;
  }

  void communication_loop() {
    try {
      for (;;) {
        size_t begin, local_ready;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] { return stop_ || (armed_ && ready_prefix_ > done_); });
          if (stop_) return;
          begin = done_;
          local_ready = ready_prefix_;
        }
        // Every rank proposes its ready prefix; all reduce the common part.
        size_t agreed = comm_.allreduce_min(local_ready);
        size_t end = begin + 1;  // one tensor larger than the threshold still goes alone
        while (end < agreed && (offset_[end + 1] - offset_[begin]) * sizeof(float) <= threshold_bytes_)
          ++end;
        reducer_->allreduce_mean(flat_.narrow(0, static_cast<int64_t>(offset_[begin]),
                                              static_cast<int64_t>(offset_[end] - offset_[begin])));
        // A copied gradient is replaced by its slot (backward is done with these parameters),
        // which is the zero-copy state from the next step on.
        for (size_t i = begin; i < end; ++i)
          if (produced_[i] && copied_[i]) param_of(i).mutable_grad() = grad_over_slot(i);
        std::lock_guard<std::mutex> lock(mu_);
        done_ = end;
        ++fused_;
        cv_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
      cv_.notify_all();
    }
  }

  Communicator& comm_;
  size_t threshold_bytes_;
  std::vector<torch::Tensor> params_;
  std::vector<size_t> offset_;  // slot i spans flat_[offset_[i], offset_[i+1])
  torch::Tensor flat_;          // the persistent fusion buffer
  std::unique_ptr<FlatAllreducer> reducer_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hook_keys_;
  std::thread comm_thread_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<char> ready_;     // slot filled this step (or zero-filled by wait())
  std::vector<char> produced_;  // slot got a real gradient this step
  std::vector<char> copied_;    // ... by a copy (its .grad was not the slot)
  std::vector<torch::Tensor> stash_;  // an unused parameter's .grad while its slot reduces zeros
  size_t ready_prefix_ = 0;     // slots [0, ready_prefix_) are all ready
  size_t done_ = 0;             // slots [0, done_) are reduced and copied back
  size_t fused_ = 0;
  bool armed_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  StepStats stats_;
};

void zero_grad_in_place(torch::optim::Optimizer& opt) {
  for (auto& group : opt.param_groups())
    for (auto& p : group.params()) {
      auto& g = p.mutable_grad();
      if (!g.defined()) continue;
      // What Optimizer::zero_grad() does to a gradient it keeps (1.13, and 2.x with
      // set_to_none = false): out of any graph, then zero.
      if (g.grad_fn()) g = g.detach();
      else g.requires_grad_(false);
      g.zero_();
    }
}

GradientSynchronizer::GradientSynchronizer(Communicator& comm, std::vector<torch::Tensor> parameters,
                                           size_t fusion_threshold_bytes)
    : impl_(std::make_unique<Impl>(comm, std::move(parameters), fusion_threshold_bytes)) {}
GradientSynchronizer::~GradientSynchronizer() = default;
void GradientSynchronizer::prepare() { impl_->prepare(); }
void GradientSynchronizer::wait() { impl_->wait(); }
GradientSynchronizer::StepStats GradientSynchronizer::last_step_stats() const { return impl_->stats(); }

}  // namespace lane::dist
