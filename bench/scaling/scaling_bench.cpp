// Weak-scaling benchmark of scnn-train's data parallelism (run under mpirun, one torch thread
// per rank): images/s of rank 0 training alone (the baseline, measured first in the same run
// while the other ranks sleep) against all ranks training together. Both use the trainer's own
// step (train_step: SCNN forward, global-batch loss, backward with the overlapped, fused ring
// allreduce of GradientSynchronizer, SGD) on a fixed synthetic batch, so the data pipeline is
// left out and the figure is compute + communication only. A third row runs all ranks at once
// without any communication: what the machine itself allows (shared caches, memory bandwidth).
//
//   mpirun --oversubscribe -np 2 build/<tag>/bench/bench_scaling [--model small|full]
//          [--height 288] [--width 512] [--batch 4] [--steps 10]
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/train_step.h"

namespace dist = lane::dist;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string model = "small";
  int height = 288, width = 512, batch = 4, steps = 10;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--model") o.model = argv[i + 1];
    else if (flag == "--height") o.height = std::atoi(argv[i + 1]);
    else if (flag == "--width") o.width = std::atoi(argv[i + 1]);
    else if (flag == "--batch") o.batch = std::atoi(argv[i + 1]);
    else if (flag == "--steps") o.steps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "bench_scaling: unknown option %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

struct Run {
  double seconds = 0;
  dist::GradientSynchronizer::StepStats last;
  double exposed_ms_per_step = 0;
};

// `steps` timed steps after one warm-up step, on `comm`.
Run train(lane::model::Scnn& net, dist::Communicator& comm, const Options& o) {
  const auto& c = net->config();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
  const lane::train::ScnnLoss loss_fn(c.num_classes, 0.4, 0.1);
  dist::GradientSynchronizer sync(comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
  const auto images = torch::randn({o.batch, 3, c.input_height, c.input_width});
  const auto seg = torch::randint(0, c.num_classes, {o.batch, c.input_height, c.input_width}, torch::kInt64);
  const auto exist = torch::randint(0, 2, {o.batch, c.num_classes - 1}).to(torch::kFloat32);
  auto step = [&] { lane::train::train_step(net, opt, loss_fn, sync, comm, images, seg, exist); };
  step();  // warm-up: first-touch allocations, the ring's buffers
  comm.barrier();
  Run r;
  const auto t0 = Clock::now();
  for (int i = 0; i < o.steps; ++i) {
    step();
    r.exposed_ms_per_step += sync.last_step_stats().exposed_wait_ms / o.steps;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.last = sync.last_step_stats();
  return r;
}

// A barrier that sleeps instead of spinning, so idle ranks leave the cores to rank 0.
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
  const Options o = parse(argc, argv);
  torch::set_num_threads(1);
  auto comm = dist::create_communicator();
  const int rank = comm->rank(), n = comm->size();
  auto config = lane::model::model_preset(o.model, "--model");
  config.input_height = o.height;
  config.input_width = o.width;
  lane::model::validate(config);
  torch::manual_seed(1);
  lane::model::Scnn net(config);

  // Baseline: rank 0 alone, no communication at all (a single-process group).
  Run alone;
  sleepy_barrier();
  if (rank == 0) {
    auto single = dist::create_single_process_communicator();
    alone = train(net, *single, o);
  }
  sleepy_barrier();

  // Ceiling of this machine: all ranks train at once but never communicate (each its own
  // single-process group), so any loss here is shared cores, caches and memory bandwidth.
  Run independent;
  {
    auto single = dist::create_single_process_communicator();
    torch::manual_seed(1);
    lane::model::Scnn own(config);
    comm->barrier();
    independent = train(own, *single, o);
  }
  double independent_slowest = independent.seconds;
  MPI_Allreduce(&independent.seconds, &independent_slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  // All ranks together, exactly as scnn-train under mpirun.
  torch::manual_seed(1);
  lane::model::Scnn shared(config);
  dist::broadcast_module(*comm, *shared);
  const Run together = train(shared, *comm, o);
  double slowest = together.seconds;
  MPI_Allreduce(&together.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    const double base = o.steps * o.batch / alone.seconds, scaled = n * o.steps * o.batch / slowest;
    const double mb = static_cast<double>(net->parameter_count()) * 4 / 1e6;
    std::printf("# weak scaling: SCNN %s (%lld params, %.1f MB of gradients) at %dx%d, batch %d per rank, "
                "%d steps, 1 torch thread per rank\n",
                o.model.c_str(), static_cast<long long>(net->parameter_count()), mb, o.height, o.width, o.batch,
                o.steps);
    std::printf("1 rank alone : %8.3f img/s  (%.3f s/step)\n", base, alone.seconds / o.steps);
    const double ceiling = n * o.steps * o.batch / independent_slowest;
    std::printf("%d ranks, no communication (machine ceiling): %8.3f img/s  (%.3f s/step)   %.3fx\n", n,
                ceiling, independent_slowest / o.steps, ceiling / base);
    std::printf("%d ranks      : %8.3f img/s  (%.3f s/step)   speed-up %.3fx, efficiency %.1f %% "
                "(%.1f %% of the ceiling)\n",
                n, scaled, slowest / o.steps, scaled / base, 100.0 * scaled / base / n, 100.0 * scaled / ceiling);
    std::printf("per step: %zu fused allreduces, wait() blocked %.2f ms on average\n", together.last.fused_allreduces,
                together.exposed_ms_per_step);
  }
  return 0;
}
