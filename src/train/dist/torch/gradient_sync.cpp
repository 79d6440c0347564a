// GradientSynchronizer: Horovod-style fusion + overlap, without Horovod's coordinator.
//
// Parameters get fixed slots in one persistent fusion buffer, in reverse parameter order
// (the order backward produces gradients). A post-hook on each parameter's AccumulateGrad node
// copies the fresh gradient into its slot, already multiplied by 1/size (averaging folded into
// the copy), and marks the slot ready. A communication thread, the only one touching the ring
// during a step, repeatedly agrees with the other ranks on the ready prefix (one tiny MIN
// allreduce: every rank then reduces the same range), reduces up to fusion_threshold bytes of
// it in place with the ring, and copies the averages back into .grad — while backward goes on.
#include "train/dist/gradient_sync.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

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
  void allreduce_sum(torch::Tensor slice) override {
    comm_.allreduce_sum(slice.data_ptr<float>(), static_cast<size_t>(slice.numel()));
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
    scale_ = torch::scalar_tensor(1.0 / comm_.size(), flat_.options());
    ready_.assign(n, 0);
    produced_.assign(n, 0);

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
    // gradient this step. It takes part as zeros so that every rank reduces the same ranges.
    for (size_t i = 0; i < ready_.size(); ++i)
      if (!ready_[i]) {
        slot(i).zero_();
        ready_[i] = true;
      }
    advance_prefix();
    cv_.notify_all();
    cv_.wait(lock, [&] { return done_ == ready_.size() || error_; });
    armed_ = false;
    if (error_) std::rethrow_exception(error_);
    lock.unlock();
    // A parameter without a gradient here receives the average of the ranks that had one;
    // one that no rank used keeps its .grad untouched, exactly as in single-process training.
    std::vector<double> producers(produced_.begin(), produced_.end());
    comm_.allreduce_sum_f64(producers.data(), producers.size());
    for (size_t i = 0; i < produced_.size(); ++i)
      if (!produced_[i] && producers[i] > 0) {
        auto& p = param_of(i);
        p.mutable_grad() = slot(i).view(p.sizes()).clone();
      }
    stats_.fused_allreduces = fused_;
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

  void on_gradient_ready(size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!armed_ || ready_[i]) return;  // a backward outside prepare()/wait() is not ours
    }
    const auto& grad = param_of(i).grad();
    auto dst = slot(i);
    torch::mul_out(dst, grad.reshape({-1}), scale_);  // copy and average in one pass
    std::lock_guard<std::mutex> lock(mu_);
    ready_[i] = true;
    produced_[i] = true;
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
        reducer_->allreduce_sum(flat_.narrow(0, static_cast<int64_t>(offset_[begin]),
                                             static_cast<int64_t>(offset_[end] - offset_[begin])));
        for (size_t i = begin; i < end; ++i) {
          auto& p = param_of(i);
          if (produced_[i]) p.mutable_grad().copy_(slot(i).view(p.sizes()));
        }
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
  torch::Tensor scale_;         // 1/size
  std::unique_ptr<FlatAllreducer> reducer_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hook_keys_;
  std::thread comm_thread_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<char> ready_;     // slot filled this step (or zero-filled by wait())
  std::vector<char> produced_;  // slot got a real gradient this step
  size_t ready_prefix_ = 0;     // slots [0, ready_prefix_) are all ready
  size_t done_ = 0;             // slots [0, done_) are reduced and copied back
  size_t fused_ = 0;
  bool armed_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  StepStats stats_;
};

GradientSynchronizer::GradientSynchronizer(Communicator& comm, std::vector<torch::Tensor> parameters,
                                           size_t fusion_threshold_bytes)
    : impl_(std::make_unique<Impl>(comm, std::move(parameters), fusion_threshold_bytes)) {}
GradientSynchronizer::~GradientSynchronizer() = default;
void GradientSynchronizer::prepare() { impl_->prepare(); }
void GradientSynchronizer::wait() { impl_->wait(); }
GradientSynchronizer::StepStats GradientSynchronizer::last_step_stats() const { return impl_->stats(); }

}  // namespace lane::dist
