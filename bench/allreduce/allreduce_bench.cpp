// Allreduce benchmark (run under mpirun): for each size, our ring next to MPI_Allreduce,
// both in place on the same communicator, trials interleaved, median time reported as
// time / algbw / busbw (nccl-tests: algbw = S/t, busbw = algbw * 2(n-1)/n), plus the ratio.
// Then the SCNN gradient set: 20.99 M floats in 68 tensors in one fusion buffer, reduced to the
// mean as GradientSynchronizer does (zero copy, or with the copies of a first step) — against
// one MPI_Allreduce of the same bytes with no copies. Last, the per-step stop agreement (one
// allreduce_min) against that gradient reduction.
//
//   mpirun --oversubscribe -np 2 build/<tag>/bench/bench_allreduce [--max-mb 256] [--trials 5] [--chunk-kb N]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

#include "scnn_gradient_shapes.h"
#include "train/dist/mpi_communicator.h"

namespace {

using Fn = std::function<void()>;

// Seconds per call of fn, slowest rank, `iters` calls after a barrier.
double time_calls(const Fn& fn, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) fn();
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
  double slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Interleaved trials of two functions; returns the two medians.
std::pair<double, double> compare(const Fn& a, const Fn& b, int iters, int trials) {
  a();
  b();  // warm-up: page faults, plans
  std::vector<double> ta, tb;
  for (int t = 0; t < trials; ++t) {
    ta.push_back(time_calls(a, iters));
    tb.push_back(time_calls(b, iters));
  }
  return {median(ta), median(tb)};
}

std::string human(size_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20)) std::snprintf(buf, sizeof buf, "%zu MB", bytes >> 20);
  else std::snprintf(buf, sizeof buf, "%zu KB", bytes >> 10);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  size_t max_mb = 256;
  int trials = 5;
  size_t chunk_kb = 0;  // 0: the ring's default
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-mb")) max_mb = std::strtoul(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--chunk-kb")) chunk_kb = std::strtoul(argv[i + 1], nullptr, 10);
  }
  lane::dist::MpiCommunicator comm;
  if (chunk_kb > 0) comm.ring().set_chunk_bytes(chunk_kb * 1024);
  const int n = comm.size(), rank = comm.rank();
  const double bus = 2.0 * (n - 1) / n;
  if (rank == 0) {
    std::printf("# allreduce, float sum, in place, %d ranks, %d interleaved trials, median\n", n, trials);
    std::printf("%10s | %10s %9s %9s | %10s %9s %9s | %s\n", "size", "ring us", "algbw", "busbw",
                "MPI us", "algbw", "busbw", "MPI/ring");
  }
  std::vector<float> buf((max_mb << 20) / sizeof(float), 1.0f);
  for (size_t bytes = 4096; bytes <= (max_mb << 20); bytes *= 4) {
    size_t count = bytes / sizeof(float);
    int iters = static_cast<int>(std::clamp<size_t>((size_t{64} << 20) / bytes, 1, 200));
    auto [ring, mpi] = compare([&] { comm.allreduce_sum(buf.data(), count); },
                               [&] { comm.mpi_allreduce_sum(buf.data(), count); }, iters, trials);
    std::fill(buf.begin(), buf.begin() + count, 1.0f);  // keep values finite
    if (rank == 0)
      std::printf("%10s | %10.1f %9.2f %9.2f | %10.1f %9.2f %9.2f | %8.2fx\n", human(bytes).c_str(),
                  ring * 1e6, bytes / ring / 1e9, bytes / ring / 1e9 * bus, mpi * 1e6,
                  bytes / mpi / 1e9, bytes / mpi / 1e9 * bus, mpi / ring);
  }

  // The SCNN gradient set, fused (one 128 MiB Horovod-default bucket holds all 84 MB), as
  // GradientSynchronizer reduces it: from the second step on every .grad is its slot of the
  // fusion buffer (zero copy: one ring mean); on the first step, or after code replaced .grad,
  // each gradient is copied in and the buffer becomes the new .grad tensors (copy in + ring
  // mean; the copy back of the earlier design is gone, measured here for comparison).
  auto sizes = lane::bench::scnn_gradient_sizes();
  size_t total = std::accumulate(sizes.begin(), sizes.end(), size_t{0});
  std::vector<std::vector<float>> grads;
  for (size_t s : sizes) grads.emplace_back(s, 0.5f);
  std::vector<float> fused(total, 0.5f), plain(total, 0.5f);
  auto pack = [&] {
    size_t off = 0;
    for (size_t i = sizes.size(); i-- > 0;) {  // reverse parameter order
      std::memcpy(fused.data() + off, grads[i].data(), sizes[i] * sizeof(float));
      off += sizes[i];
    }
  };
  auto unpack = [&] {
    size_t off = 0;
    for (size_t i = sizes.size(); i-- > 0;) {
      std::memcpy(grads[i].data(), fused.data() + off, sizes[i] * sizeof(float));
      off += sizes[i];
    }
  };
  auto zero_copy = [&] { comm.allreduce_mean(fused.data(), total); };
  auto copy_in = [&] {
    pack();
    comm.allreduce_mean(fused.data(), total);
  };
  auto copy_in_out = [&] {
    pack();
    comm.allreduce_mean(fused.data(), total);
    unpack();
  };
  auto one_mpi = [&] { comm.mpi_allreduce_sum(plain.data(), total); };
  const int calls = 10;
  auto [t0, m0] = compare(zero_copy, one_mpi, calls, trials);
  auto [t1, m1] = compare(copy_in, one_mpi, calls, trials);
  auto [t2, m2] = compare(copy_in_out, one_mpi, calls, trials);
  if (rank == 0) {
    std::printf("\n# SCNN gradient set: %zu tensors, %zu floats (%.1f MB), fused, mean; %d calls x %d trials\n",
                sizes.size(), total, total * 4 / 1e6, calls, trials);
    std::printf("%-44s %10s %14s %10s\n", "fused ring", "ms", "MPI_Allreduce", "ring/MPI");
    std::printf("%-44s %10.2f %14.2f %9.2fx (goal <= 1.10x)\n", "zero copy (every step after the first)",
                t0 * 1e3, m0 * 1e3, t0 / m0);
    std::printf("%-44s %10.2f %14.2f %9.2fx\n", "copy in (first step)", t1 * 1e3, m1 * 1e3, t1 / m1);
    std::printf("%-44s %10.2f %14.2f %9.2fx\n", "copy in + copy out (the earlier design)", t2 * 1e3, m2 * 1e3,
                t2 / m2);
  }

  // The stop agreement of every training step (trainer.cpp: one allreduce_min of a uint64, so
  // that a SIGTERM seen by some ranks stops all at the same step), next to that step's gradient
  // reduction (zero copy, above): the share of a step's communication it adds.
  uint64_t agreed = 0;
  std::vector<double> agree_times;
  for (int t = 0; t < trials; ++t) agree_times.push_back(time_calls([&] { agreed += comm.allreduce_min(1); }, 2000));
  const double agree = median(agree_times);
  if (rank == 0) {
    std::printf("\n# stop agreement per step: allreduce_min of 8 bytes, 2000 calls x %d trials\n", trials);
    std::printf("%-44s %10.1f us = %.4fx the zero-copy SCNN gradient reduction (%.2f ms)\n",
                "allreduce_min (every step)", agree * 1e6, agree / t0, t0 * 1e3);
  }
  return agreed == 0 ? 1 : 0;  // every call returned 1
}
