// Weak-scaling benchmark (run under mpirun, one torch thread per rank): images/s of rank 0
// training alone (the baseline, measured first in the same run while the other ranks sleep)
// against all ranks training together with GradientSynchronizer (per-rank batch fixed).
// The model is a small stand-in CNN (about 1.2 M parameters, 3x96x96 input), not SCNN:
// the trainer was not available to this benchmark, and full SCNN steps take seconds per
// image on this machine.
//
//   mpirun --oversubscribe -np 2 build/<tag>/bench/bench_scaling [--steps 10] [--batch 8]
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "train/dist/gradient_sync.h"

namespace dist = lane::dist;

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl() {
    c1 = register_module("c1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).padding(1)));
    c2 = register_module("c2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)));
    c3 = register_module("c3", torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 128, 3).padding(1)));
    fc = register_module("fc", torch::nn::Linear(128 * 12 * 12, 64));
    out = register_module("out", torch::nn::Linear(64, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(c1->forward(x)), 2);
    x = torch::max_pool2d(torch::relu(c2->forward(x)), 2);
    x = torch::max_pool2d(torch::relu(c3->forward(x)), 2);
    return out->forward(torch::relu(fc->forward(x.flatten(1))));
  }
  torch::nn::Conv2d c1{nullptr}, c2{nullptr}, c3{nullptr};
  torch::nn::Linear fc{nullptr}, out{nullptr};
};
TORCH_MODULE(Net);

// Seconds for `steps` SGD steps; sync may be null (no communication at all).
double train(Net& net, torch::optim::SGD& opt, dist::GradientSynchronizer* sync, int steps, int batch) {
  auto x = torch::randn({batch, 3, 96, 96});
  auto y = torch::randint(0, 10, {batch});
  auto step = [&] {
    opt.zero_grad();
    if (sync) sync->prepare();
    torch::nn::functional::cross_entropy(net->forward(x), y).backward();
    if (sync) sync->wait();
    opt.step();
  };
  step();  // warm-up
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A barrier that sleeps instead of spinning, so idle ranks leave the core to rank 0.
void sleepy_barrier() {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) usleep(2000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 10, batch = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
  }
  torch::set_num_threads(1);
  auto comm = dist::create_communicator();
  const int rank = comm->rank(), n = comm->size();
  torch::manual_seed(1);
  Net net;
  size_t params = 0;
  for (auto& p : net->parameters()) params += p.numel();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));

  double alone = 0;
  sleepy_barrier();
  if (rank == 0) alone = train(net, opt, nullptr, steps, batch);
  sleepy_barrier();

  dist::broadcast_module(*comm, *net);
  dist::GradientSynchronizer sync(*comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
  comm->barrier();
  double together = train(net, opt, n > 1 ? &sync : nullptr, steps, batch);
  double slowest = together;
  MPI_Allreduce(&together, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    double base = steps * batch / alone, scaled = n * steps * batch / slowest;
    std::printf("# weak scaling: stand-in CNN %zu params, batch %d per rank, %d steps, 1 torch thread per rank\n",
                params, batch, steps);
    std::printf("1 rank alone : %8.1f img/s\n%d ranks      : %8.1f img/s   speed-up %.2fx (goal >= 1.9x for 2)\n",
                base, n, scaled, scaled / base);
    std::printf("last step: %zu fused allreduces, wait() blocked %.2f ms\n",
                sync.last_step_stats().fused_allreduces, sync.last_step_stats().exposed_wait_ms);
  }
  return 0;
}
