// The factory and the single-process group. MPI is only touched when mpirun started us
// with more than one rank, so `scnn-train train` alone never needs an MPI runtime.
#include "train/dist/communicator.h"

#include <cstdlib>
#include <string>

#include "common/error.h"
#include "train/dist/mpi_communicator.h"

namespace lane::dist {

void Communicator::allreduce_mean(float* data, size_t count) {
  allreduce_sum(data, count);
  if (size() == 1) return;
  const float scale = 1.0f / static_cast<float>(size());
  for (size_t i = 0; i < count; ++i) data[i] *= scale;
}

void Communicator::allreduce_sum_f64(double*, size_t) {
  if (size() != 1) throw Error("allreduce_sum_f64 is not implemented by this communicator");
}

uint64_t Communicator::allreduce_min(uint64_t value) {
  if (size() != 1) throw Error("allreduce_min is not implemented by this communicator");
  return value;
}

namespace {

class SingleProcessCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(float*, size_t) override {}
  void broadcast(void*, size_t, int root) override {
    if (root != 0) throw Error("broadcast: root " + std::to_string(root) + " does not exist (1 rank)");
  }
  void barrier() override {}
  void allreduce_sum_f64(double*, size_t) override {}
  uint64_t allreduce_min(uint64_t value) override { return value; }
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::atoi(v);
}

}  // namespace

double default_timeout_seconds() {
  const char* v = std::getenv("LANE_DIST_TIMEOUT_S");
  if (!v || !*v) return 30.0;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s > 0))
    throw UsageError(std::string("LANE_DIST_TIMEOUT_S='") + v +
                     "' is not a positive number of seconds; unset it for the 30 s default");
  return s;
}

std::unique_ptr<Communicator> create_single_process_communicator() {
  return std::make_unique<SingleProcessCommunicator>();
}

std::unique_ptr<Communicator> create_communicator() {
  double timeout = default_timeout_seconds();
  std::unique_ptr<Communicator> comm;
  if (env_int("OMPI_COMM_WORLD_SIZE", 1) > 1) {
#ifdef LANE_WITH_MPI
    comm = std::make_unique<MpiCommunicator>();
#else
    throw Error("launched under mpirun with several ranks, but this build has no MPI support "
                "(install libopenmpi-dev and reconfigure)");
#endif
  } else {
    comm = create_single_process_communicator();
  }
  comm->set_timeout_seconds(timeout);
  return comm;
}

}  // namespace lane::dist
