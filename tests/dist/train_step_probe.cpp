// Run under mpirun with 2+ ranks: the trainer's own step (train_step) keeps the gradient
// synchronizer's zero-copy state. From the second step on every .grad is its slot in the fusion
// buffer, so no gradient may be copied into it (GradientSynchronizer::StepStats::copied_gradients).
//
// Why this exists: libtorch 2.x's Optimizer::zero_grad() defaults to set_to_none = true, which
// resets every .grad to undefined; a step calling it makes backward allocate fresh gradients that
// the synchronizer then copies into the buffer, every step (~84 MB for the full SCNN). libtorch
// 1.13's zero_grad() zeroed in place, so on a 1.13 build this passes with or without the fix; on
// 2.x it fails unless train_step zeroes in place (dist::zero_grad_in_place).
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/scnn_loss.h"
#include "train/trainer/train_step.h"

namespace dist = lane::dist;

int main() {
  torch::set_num_threads(1);
  auto comm = dist::create_communicator();
  const int rank = comm->rank(), n = comm->size();
  lane::model::ScnnConfig c = lane::model::model_preset("small");
  c.input_height = 32;
  c.input_width = 64;
  c.dropout = 0;
  torch::manual_seed(3);
  lane::model::Scnn net(c);
  dist::broadcast_module(*comm, *net);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  const lane::train::ScnnLoss loss_fn(c.num_classes, 0.4, 0.1);
  dist::GradientSynchronizer sync(*comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
  int failures = 0;
  for (int step = 0; step < 3; ++step) {
    torch::manual_seed(100 * step + rank);
    const auto images = torch::randn({2, 3, c.input_height, c.input_width});
    const auto seg = torch::randint(0, c.num_classes, {2, c.input_height, c.input_width}, torch::kInt64);
    const auto exist = torch::randint(0, 2, {2, c.num_classes - 1}).to(torch::kFloat32);
    lane::train::train_step(net, opt, loss_fn, sync, *comm, images, seg, exist);
    const size_t copied = sync.last_step_stats().copied_gradients;
    std::printf("rank %d step %d: %zu gradient(s) copied into the fusion buffer\n", rank, step + 1, copied);
    // Step 1 has no gradients yet (all copied); steps 2 and 3 must be zero copy.
    const bool ok = n == 1 || (step == 0 ? copied > 0 : copied == 0);
    if (!ok) {
      ++failures;
      std::fprintf(stderr, "rank %d: FAIL step %d copied %zu gradient(s)%s\n", rank, step + 1, copied,
                   step == 0 ? " (expected all)" : " (expected none: .grad must stay its slot)");
    }
  }
  double all = failures;
  comm->allreduce_sum_f64(&all, 1);
  if (rank == 0) std::printf("train_step probe: %d ranks, %s\n", n, all ? "FAILED" : "all checks passed");
  return all ? 1 : 0;
}
