// Allreduce benchmark (run under mpirun): for each size, our ring next to MPI_Allreduce,
// both in place on the same communicator, trials interleaved, median time reported as
// time / algbw / busbw (nccl-tests: algbw = S/t, busbw = algbw * 2(n-1)/n), plus the ratio.
// Then the SCNN gradient set: 20.99 M floats in 68 tensors, packed (scaled by 1/n) into the
// fusion buffer in reverse order, ring-reduced, unpacked — against one MPI_Allreduce of the
// same bytes with no copies.
//
//   mpirun --oversubscribe -np 2 build/<tag>/bench/bench_allreduce [--max-mb 256] [--trials 5]
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
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-mb")) max_mb = std::strtoul(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
  }
  lane::dist::MpiCommunicator comm;
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

  // The SCNN gradient set, fused (one 128 MiB Horovod-default bucket holds all 84 MB).
  auto sizes = lane::bench::scnn_gradient_sizes();
  size_t total = std::accumulate(sizes.begin(), sizes.end(), size_t{0});
  std::vector<std::vector<float>> grads;
  for (size_t s : sizes) grads.emplace_back(s, 0.5f);
  std::vector<float> fused(total), plain(total, 0.5f);
  const float scale = 1.0f / n;
  auto fused_ring = [&] {
    size_t off = 0;
    for (size_t i = sizes.size(); i-- > 0;) {  // reverse parameter order, averaging folded in
      const float* g = grads[i].data();
      float* dst = fused.data() + off;
      for (size_t k = 0; k < sizes[i]; ++k) dst[k] = g[k] * scale;
      off += sizes[i];
    }
    comm.allreduce_sum(fused.data(), total);
    off = 0;
    for (size_t i = sizes.size(); i-- > 0;) {
      std::memcpy(grads[i].data(), fused.data() + off, sizes[i] * sizeof(float));
      off += sizes[i];
    }
  };
  auto one_mpi = [&] { comm.mpi_allreduce_sum(plain.data(), total); };
  auto [tr, tm] = compare(fused_ring, one_mpi, 3, trials);
  if (rank == 0) {
    std::printf("\n# SCNN gradient set: %zu tensors, %zu floats (%.1f MB)\n", sizes.size(), total,
                total * 4 / 1e6);
    std::printf("fused ring incl. pack+unpack: %8.2f ms   one MPI_Allreduce (no copies): %8.2f ms   "
                "ring/MPI = %.2fx (goal <= 1.10x)\n", tr * 1e3, tm * 1e3, tr / tm);
  }
  return 0;
}
