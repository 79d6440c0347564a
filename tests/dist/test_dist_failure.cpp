// Failure drills: a stalled or killed rank must make the whole job exit non-zero within the
// deadline, never hang; a stall is reported with the silent rank's number.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "train/dist/communicator.h"
#include "common/error.h"

namespace {

struct RunResult {
  int exit_code;
  double seconds;
  std::string output;
};

RunResult run(const std::string& args) {
  std::string cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe " +
                    args + " 2>&1";
  auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), s, out};
}

}  // namespace

TEST_CASE("a stalled rank makes the others abort within the deadline, naming it", "[dist][slow]") {
  // 3 ranks, rank 1 sleeps 120 s; deadline 2 s. Rank 2 waits on rank 1 and must say so.
  auto r = run("-np 3 " LANE_DIST_RING_PROBE " --stall-rank 1 --timeout 2");
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.seconds < 30);
  CHECK(r.output.find("rank 2: no data from rank 1 for 2 s; aborting") != std::string::npos);
}

TEST_CASE("a killed rank makes the job exit non-zero promptly", "[dist][slow]") {
  auto r = run("-np 3 " LANE_DIST_RING_PROBE " --die-rank 2 --timeout 20");
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.seconds < 30);
  CHECK(r.output.find("second allreduce returned") == std::string::npos);
}

TEST_CASE("the single-process communicator is rank 0 of 1 and leaves data alone", "[dist][fast]") {
  auto comm = lane::dist::create_single_process_communicator();
  CHECK(comm->rank() == 0);
  CHECK(comm->size() == 1);
  float v[3] = {1, 2, 3};
  comm->allreduce_sum(v, 3);
  CHECK(v[2] == 3);
  CHECK(comm->allreduce_min(7) == 7);
  CHECK_THROWS_AS(comm->broadcast(v, sizeof v, 1), lane::Error);
}

TEST_CASE("LANE_DIST_TIMEOUT_S is validated", "[dist][fast]") {
  setenv("LANE_DIST_TIMEOUT_S", "abc", 1);
  CHECK_THROWS_AS(lane::dist::default_timeout_seconds(), lane::UsageError);
  setenv("LANE_DIST_TIMEOUT_S", "-1", 1);
  CHECK_THROWS_AS(lane::dist::default_timeout_seconds(), lane::UsageError);
  setenv("LANE_DIST_TIMEOUT_S", "7.5", 1);
  CHECK(lane::dist::default_timeout_seconds() == 7.5);
  unsetenv("LANE_DIST_TIMEOUT_S");
  CHECK(lane::dist::default_timeout_seconds() == 30.0);
}
