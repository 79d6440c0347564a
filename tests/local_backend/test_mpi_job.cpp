// submit-mpi: 3 ranks under mpirun --tag-output, one GPU set per rank.
#include <catch2/catch.hpp>

#include <set>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("an MPI job with 3 processes logs [1,rank]<stdout>: lines with one GPU per rank", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=4"}).code == 0);
  auto s = l.run({"submit-mpi", "--name", "mpi3", "--processes=3", "--gpu", "1", "-i", "x", "-e", "TAG=seed",
                  "--command", "--", "/bin/sh", "-c", "echo rank=$OMPI_COMM_WORLD_RANK gpu=$CUDA_VISIBLE_DEVICES tag=$TAG"});
  INFO(s.err);
  REQUIRE(s.code == 0);
  auto doc = l.wait_status("mpi3", {"Succeeded", "Failed"}, "default", 60);
  auto logs = l.run({"logs", "mpi3"});
  INFO(logs.out);
  REQUIRE(doc.value("status", "") == "Succeeded");
  CHECK(doc["type"] == "Mpi");
  std::set<std::string> gpus;
  for (int r = 0; r < 3; ++r) {
    std::string prefix = "[1," + std::to_string(r) + "]<stdout>:rank=" + std::to_string(r) + " gpu=";
    auto pos = logs.out.find(prefix);
    REQUIRE(pos != std::string::npos);
    std::string gpu = logs.out.substr(pos + prefix.size(), 1);
    gpus.insert(gpu);
    CHECK(logs.out.find("tag=seed", pos) != std::string::npos);
  }
  CHECK(gpus.size() == 3);  // each rank saw a different GPU
  // --pod selects one rank's lines.
  auto w1 = l.run({"logs", "mpi3", "--pod", "mpi3-worker-1"});
  CHECK(w1.out.find("[1,1]<stdout>:rank=1") == 0);
  CHECK(w1.out.find("[1,0]") == std::string::npos);
  CHECK(l.run({"logs", "mpi3", "--pod", "nope"}).code == 2);

  auto describe = l.run({"describe", "job", "mpi3"});
  CHECK(describe.out.find("mpi3-launcher") != std::string::npos);
  CHECK(describe.out.find("mpi3-worker-2") != std::string::npos);
  CHECK(describe.out.find("IS DISTRIBUTED WORKLOAD: true") != std::string::npos);
}
