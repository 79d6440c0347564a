// Run under mpirun: checks our ring allreduce against MPI_Allreduce for many sizes and chunk
// sizes, plus broadcast/barrier/min/f64 sum. Exit 0 = all equal. Also the failure drills:
//   --stall-rank R   rank R sleeps instead of reducing (the others must abort, naming R)
//   --die-rank R     rank R is killed with SIGKILL before reducing
//   --timeout S      the stall deadline in seconds
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "train/dist/mpi_communicator.h"

using lane::dist::MpiCommunicator;

namespace {

int failures = 0;

void check(bool ok, const std::string& what, int rank) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
  }
}

// Integer-valued floats below 2^24: sums are exact in any order, so ring == MPI bit for bit.
void fill(std::vector<float>& v, int rank, size_t salt) {
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 7 + salt * 13 + static_cast<size_t>(rank) * 31) % 1001) - 500);
}

void check_size(MpiCommunicator& comm, size_t count, size_t salt) {
  std::vector<float> ours(count), theirs(count);
  fill(ours, comm.rank(), salt);
  fill(theirs, comm.rank(), salt);
  comm.allreduce_sum(ours.data(), count);
  comm.mpi_allreduce_sum(theirs.data(), count);
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i)
    if (ours[i] != theirs[i]) ++bad;
  check(bad == 0, "ring != MPI_Allreduce for count " + std::to_string(count) + " (" +
                      std::to_string(bad) + " elements differ)", comm.rank());

  // The mean: the ring scales each exact sum once, so it equals MPI's sum times 1/N bit for bit.
  std::vector<float> mean(count);
  fill(mean, comm.rank(), salt);
  comm.allreduce_mean(mean.data(), count);
  const float scale = 1.0f / static_cast<float>(comm.size());
  bad = 0;
  for (size_t i = 0; i < count; ++i)
    if (mean[i] != theirs[i] * scale) ++bad;
  check(bad == 0, "ring mean != MPI_Allreduce / N for count " + std::to_string(count) + " (" +
                      std::to_string(bad) + " elements differ)", comm.rank());
}

}  // namespace

int main(int argc, char** argv) {
  int stall_rank = -1, die_rank = -1;
  double timeout = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--stall-rank")) stall_rank = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--die-rank")) die_rank = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--timeout")) timeout = std::atof(argv[i + 1]);
  }
  MpiCommunicator comm;
  comm.set_timeout_seconds(timeout);
  const int rank = comm.rank();

  if (stall_rank >= 0 || die_rank >= 0) {
    std::vector<float> v(1 << 16, 1.0f);
    comm.allreduce_sum(v.data(), v.size());  // one good round first, as in training
    if (rank == die_rank) kill(getpid(), SIGKILL);
    if (rank == stall_rank) sleep(120);
    comm.allreduce_sum(v.data(), v.size());
    std::printf("rank %d: second allreduce returned (should not happen)\n", rank);
    return 0;
  }

  const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 31, 1000, 4097, 65536, 65539, 1000003, (1u << 20) + 3};
  size_t salt = 0;
  for (size_t chunk_bytes : {size_t{4}, size_t{64}, size_t{4096}, lane::dist::RingAllreduce::kDefaultChunkBytes}) {
    comm.ring().set_chunk_bytes(chunk_bytes);
    for (size_t count : sizes) {
      if (chunk_bytes < 4096 && count > 5000) continue;  // tiny chunks: keep the run short
      check_size(comm, count, ++salt);
    }
  }
  // Repeated calls with alternating sizes reuse the persistent plan and scratch correctly.
  for (int round = 0; round < 3; ++round) {
    check_size(comm, 12345, ++salt);
    check_size(comm, 3, ++salt);
  }

  std::vector<char> blob(100003);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>(rank == comm.size() - 1 ? i * 3 : 0);
  comm.broadcast(blob.data(), blob.size(), comm.size() - 1);
  bool same = true;
  for (size_t i = 0; i < blob.size(); ++i) same = same && blob[i] == static_cast<char>(i * 3);
  check(same, "broadcast from the last rank", rank);

  check(comm.allreduce_min(100 + static_cast<uint64_t>(rank) * 5) == 100, "allreduce_min", rank);
  double d[2] = {0.5 * rank, 1.0};
  comm.allreduce_sum_f64(d, 2);
  int n = comm.size();
  check(d[0] == 0.25 * n * (n - 1) && d[1] == n, "allreduce_sum_f64", rank);
  comm.barrier();

  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("ring probe: %d ranks, %s\n", n, all_failures ? "FAILED" : "all checks passed");
  return all_failures ? 1 : 0;
}
