// Start-of-training agreement: every rank gets rank 0's weights, buffers and optimizer state,
// and metrics are averaged over ranks.
#include <cstdint>
#include <sstream>
#include <string>

#include "common/error.h"
#include "train/dist/gradient_sync.h"

namespace lane::dist {

namespace {

// FNV-1a over names, shapes and dtypes: equal on every rank iff the models match.
uint64_t fingerprint(torch::nn::Module& module) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  };
  auto add = [&](const std::string& name, const torch::Tensor& t) {
    mix(name);
    for (auto d : t.sizes()) mix(std::to_string(d) + ",");
    mix(std::string(c10::toString(t.scalar_type())));
  };
  for (auto& kv : module.named_parameters(true)) add("p:" + kv.key(), kv.value());
  for (auto& kv : module.named_buffers(true)) add("b:" + kv.key(), kv.value());
  return h;
}

void broadcast_tensor(Communicator& comm, torch::Tensor t) {
  if (t.device().is_cpu() && t.is_contiguous()) {
    comm.broadcast(t.data_ptr(), t.numel() * t.element_size(), 0);
    return;
  }
  auto host = t.to(torch::kCPU).contiguous();  // MPI here is not CUDA-aware
  comm.broadcast(host.data_ptr(), host.numel() * host.element_size(), 0);
  t.copy_(host);
}

}  // namespace

void broadcast_module(Communicator& comm, torch::nn::Module& module) {
  if (comm.size() == 1) return;
  uint64_t mine = fingerprint(module), root = mine;
  comm.broadcast(&root, sizeof root, 0);
  double mismatches = mine != root ? 1.0 : 0.0;
  comm.allreduce_sum_f64(&mismatches, 1);
  if (mismatches > 0)
    throw Error("broadcast_module: " + std::to_string(static_cast<int>(mismatches)) +
                " rank(s) have parameters or buffers that differ from rank 0 (names/shapes/dtypes)" +
                (mine != root ? "; this rank " + std::to_string(comm.rank()) + " is one of them" : ""));
  torch::NoGradGuard no_grad;
  for (auto& p : module.parameters(true)) broadcast_tensor(comm, p);
  for (auto& b : module.buffers(true)) broadcast_tensor(comm, b);
}

void broadcast_optimizer_state(Communicator& comm, torch::optim::Optimizer& opt) {
  if (comm.size() == 1) return;
  // libtorch's own serializer covers every optimizer's options and per-parameter state.
  // Optimizer::load() restores per-parameter state but not the groups' options (lr, momentum,
  // ...), so those travel as separate sub-archives.
  const size_t groups = opt.param_groups().size();
  std::string bytes;
  if (comm.rank() == 0) {
    torch::serialize::OutputArchive archive, state;
    opt.save(state);
    archive.write("state", state);
    for (size_t i = 0; i < groups; ++i) {
      torch::serialize::OutputArchive options;
      opt.param_groups()[i].options().serialize(options);
      archive.write("options/" + std::to_string(i), options);
    }
    std::ostringstream out;
    archive.save_to(out);
    bytes = out.str();
  }
  uint64_t size = bytes.size();
  comm.broadcast(&size, sizeof size, 0);
  bytes.resize(size);
  comm.broadcast(bytes.data(), size, 0);
  if (comm.rank() != 0) {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive, state;
    archive.load_from(in);
    archive.read("state", state);
    opt.load(state);
    for (size_t i = 0; i < groups; ++i) {
      torch::serialize::InputArchive options;
      if (!archive.try_read("options/" + std::to_string(i), options))
        throw Error("broadcast_optimizer_state: rank 0's optimizer has fewer parameter groups (" +
                    std::to_string(i) + ") than this rank's (" + std::to_string(groups) + ")");
      opt.param_groups()[i].options().serialize(options);
    }
  }
}

double average_scalar(Communicator& comm, double value) {
  if (comm.size() == 1) return value;
  comm.allreduce_sum_f64(&value, 1);
  return value / comm.size();
}

}  // namespace lane::dist
