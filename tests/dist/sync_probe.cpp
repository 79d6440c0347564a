// Run under mpirun: GradientSynchronizer, broadcast_module, broadcast_optimizer_state and
// average_scalar on a small conv net. Each rank trains on its own batch; the synchronized
// gradients must equal the explicit average of all ranks' gradients, which every rank can
// compute locally because the batches are generated from the rank number.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "train/dist/gradient_sync.h"

namespace dist = lane::dist;

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3)));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 4, 3)));
    fc = register_module("fc", torch::nn::Linear(64, 5));
    unused = register_module("unused", torch::nn::Linear(3, 2));  // never in the graph
    steps = register_buffer("steps", torch::zeros({2}));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv1->forward(x));
    x = torch::relu(conv2->forward(x));
    return fc->forward(x.flatten(1));
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc{nullptr}, unused{nullptr};
  torch::Tensor steps;
};
TORCH_MODULE(Net);

torch::Tensor batch_of(int rank, int step) {
  auto gen = at::detail::createCPUGenerator(1000 + 100 * step + rank);
  return torch::randn({2, 3, 8, 8}, gen);
}

torch::Tensor loss_of(Net& net, const torch::Tensor& x) { return net->forward(x).pow(2).mean(); }

int failures = 0;
void check(bool ok, const std::string& what, int rank) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
  }
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// Same value on every rank?
bool agrees(dist::Communicator& comm, double v) {
  double root = v;
  comm.broadcast(&root, sizeof root, 0);
  double bad = std::abs(root - v) > 1e-9 * (1 + std::abs(root)) ? 1 : 0;
  comm.allreduce_sum_f64(&bad, 1);
  return bad == 0;
}

double param_sum(Net& net) {
  double s = 0;
  for (auto& p : net->parameters()) s += p.sum().item<double>();
  return s;
}

// The key of parameter p in an optimizer's state map: libtorch 1.x keys it by the text of p's
// TensorImpl address (c10::guts::to_string, an ostream of the pointer), 2.x by the address itself.
template <class StateMap>
typename StateMap::key_type state_key(const StateMap&, const torch::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << p.unsafeGetTensorImpl();
    return text.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

// The zero-copy gradients are views of the synchronizer's fusion buffer. They must keep that
// buffer alive: a trainer may destroy the synchronizer (end of training, a rebuilt one) and still
// read or step with the gradients. Before the fix they were from_blob tensors over the freed
// buffer: this read garbage (or crashed under ASan).
void check_grads_outlive_synchronizer(Net& net, dist::Communicator& comm) {
  const int rank = comm.rank();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.5));
  std::vector<torch::Tensor> expected;
  {
    dist::GradientSynchronizer sync(comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
    for (int step = 0; step < 2; ++step) {  // the second step runs on the zero-copy views
      dist::zero_grad_in_place(opt);
      sync.prepare();
      loss_of(net, batch_of(rank, 10 + step)).backward();
      sync.wait();
    }
    for (auto& p : net->parameters()) expected.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  }
  // Reuse the freed memory, if it was freed: same-sized allocations full of a marker value.
  std::vector<torch::Tensor> junk;
  for (int i = 0; i < 8; ++i) junk.push_back(torch::full({4096}, 12345.0f));
  for (auto& e : expected)
    if (e.defined()) junk.push_back(torch::full({e.numel()}, 12345.0f));
  auto params = net->parameters();
  const c10::StorageImpl* shared = nullptr;
  bool one_storage = true;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& g = params[i].grad();
    if (!expected[i].defined()) continue;
    if (shared == nullptr) shared = g.storage().unsafeGetStorageImpl();
    one_storage = one_storage && g.storage().unsafeGetStorageImpl() == shared;
    check(max_abs(g - expected[i]) == 0, "grad " + std::to_string(i) + " intact after the synchronizer is gone", rank);
  }
  check(one_storage, "the gradients share (and hold) the fusion buffer's storage", rank);
  std::vector<torch::Tensor> before;
  for (auto& p : params) before.push_back(p.detach().clone());
  opt.step();  // reads and steps with the outliving gradients
  for (size_t i = 0; i < params.size(); ++i)
    if (expected[i].defined())
      check(max_abs(params[i].detach() - (before[i] - 0.5 * expected[i])) <= 1e-6 * (1 + max_abs(before[i])),
            "SGD step with outliving grad " + std::to_string(i), rank);
  dist::zero_grad_in_place(opt);  // writes them
  for (size_t i = 0; i < params.size(); ++i)
    if (expected[i].defined()) check(max_abs(params[i].grad()) == 0, "outliving grad zeroed", rank);
}

}  // namespace

int main() {
  torch::set_num_threads(1);
  auto comm = dist::create_communicator();
  const int rank = comm->rank(), n = comm->size();

  // broadcast_module: ranks start with different weights and buffers.
  torch::manual_seed(7 + rank);
  Net net;
  net->steps.fill_(rank + 1);
  dist::broadcast_module(*comm, *net);
  check(agrees(*comm, param_sum(net)), "parameters equal after broadcast_module", rank);
  check(net->steps[0].item<float>() == 1.0f, "buffer equals rank 0's after broadcast_module", rank);

  // Reference: the gradient of each rank's batch on a private copy, averaged.
  Net ref;
  {
    torch::NoGradGuard g;
    auto src = net->parameters(), dst = ref->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }

  // Grads reset to undefined before each step (always the copy path), then zeroed in place by
  // zero_grad_in_place() as the trainer does (zero copy once every .grad is its slot).
  for (bool zero_in_place : {false, true})
  for (size_t threshold : {size_t{256}, dist::kDefaultFusionThresholdBytes}) {
    dist::GradientSynchronizer sync(*comm, net->parameters(), threshold);
    torch::optim::SGD zeroing(net->parameters(), torch::optim::SGDOptions(0.0));
    for (auto& p : net->parameters()) p.mutable_grad() = torch::Tensor();
    for (int step = 0; step < 3; ++step) {
      for (auto& p : ref->parameters()) p.mutable_grad() = torch::Tensor();
      std::vector<torch::Tensor> expected;
      for (int r = 0; r < n; ++r) loss_of(ref, batch_of(r, step)).backward();
      for (auto& p : ref->parameters())
        expected.push_back(p.grad().defined() ? p.grad() / n : torch::Tensor());

      if (zero_in_place)
        dist::zero_grad_in_place(zeroing);  // not zeroing.zero_grad(): 2.x resets to undefined
      else
        for (auto& p : net->parameters()) p.mutable_grad() = torch::Tensor();
      sync.prepare();
      loss_of(net, batch_of(rank, step)).backward();
      sync.wait();
      auto params = net->parameters();
      for (size_t i = 0; i < params.size(); ++i) {
        const auto& g = params[i].grad();
        // A parameter no rank used ("unused") keeps an undefined grad, as without MPI.
        bool ok = expected[i].defined()
                      ? g.defined() && max_abs(g - expected[i]) <= 1e-5 * (1 + max_abs(expected[i]))
                      : !g.defined();
        check(ok, "grad " + std::to_string(i) + " threshold " + std::to_string(threshold) +
                      " step " + std::to_string(step) + (zero_in_place ? " (zero copy)" : ""), rank);
      }
      if (n > 1) {
        const size_t copied = sync.last_step_stats().copied_gradients;
        if (zero_in_place && step > 0)
          check(copied == 0, "zero copy: no gradient copied at step " + std::to_string(step), rank);
        else
          check(copied > 0, "undefined grads are copied into the fusion buffer", rank);
      }
      if (n > 1 && threshold == 256)
        check(sync.last_step_stats().fused_allreduces > 1, "small threshold splits the buffer", rank);
    }
  }

  if (n > 1) check_grads_outlive_synchronizer(net, *comm);

  // broadcast_optimizer_state: only rank 0 has momentum state and its own learning rate.
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(rank == 0 ? 0.1 : 0.5).momentum(0.9));
  if (rank == 0) {
    for (auto& p : net->parameters()) p.mutable_grad() = torch::ones_like(p);
    opt.step();
  }
  dist::broadcast_optimizer_state(*comm, opt);
  auto& options = static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options());
  check(options.lr() == 0.1, "learning rate equals rank 0's", rank);
  double momentum_sum = 0;
  size_t with_state = 0;
  for (auto& p : opt.param_groups()[0].params()) {
    auto it = opt.state().find(state_key(opt.state(), p));
    if (it == opt.state().end()) continue;
    ++with_state;
    momentum_sum += static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer().sum().item<double>();
  }
  check(with_state > 0 && agrees(*comm, momentum_sum), "momentum buffers equal rank 0's", rank);

  check(std::abs(dist::average_scalar(*comm, rank) - (n - 1) / 2.0) < 1e-12, "average_scalar", rank);

  double all = failures;
  comm->allreduce_sum_f64(&all, 1);
  if (rank == 0) std::printf("sync probe: %d ranks, %s\n", n, all ? "FAILED" : "all checks passed");
  return all ? 1 : 0;
}
