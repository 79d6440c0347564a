// submit-dist pytorch on the local backend: a master and --workers workers started as torchrun
// starts them, with its rendezvous environment, in the job's own network namespace.
#include <catch2/catch.hpp>

#include <set>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

namespace {

// Each rank prints its environment; rank 0 listens on MASTER_ADDR:MASTER_PORT and the others
// connect and send their rank (retrying while the master starts), as a c10d TCP store would.
const char* kRendezvous = R"(
import os, socket, time
env = {k: os.environ[k] for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK",
                                   "LOCAL_WORLD_SIZE", "GROUP_RANK", "CUDA_VISIBLE_DEVICES")}
print("env " + " ".join("%s=%s" % kv for kv in sorted(env.items())), flush=True)
addr, port, world, rank = env["MASTER_ADDR"], int(env["MASTER_PORT"]), int(env["WORLD_SIZE"]), int(env["RANK"])
if rank == 0:
    srv = socket.create_server((addr, port))
    seen = sorted(int(srv.accept()[0].recv(16)) for _ in range(world - 1))
    print("master saw ranks %s" % seen, flush=True)
else:
    for _ in range(200):
        try:
            socket.create_connection((addr, port)).sendall(str(rank).encode())
            break
        except OSError:
            time.sleep(0.05)
    else:
        raise SystemExit("rank %d: no master at %s:%d" % (rank, addr, port))
)";

}  // namespace

TEST_CASE("a PyTorch job's master and workers rendezvous on MASTER_ADDR:MASTER_PORT with torchrun's environment",
          "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=4"}).code == 0);
  auto s = l.run({"submit-dist", "pytorch", "ddp", "--workers", "2", "--gpu", "1", "-i", "x", "--command", "--",
                  "python3", "-c", kRendezvous});
  INFO(s.out << s.err);
  REQUIRE(s.code == 0);
  auto doc = l.wait_status("ddp", {"Succeeded", "Failed"}, "default", 60);
  auto logs = l.run({"logs", "ddp"});
  INFO(logs.out);
  REQUIRE(doc.value("status", "") == "Succeeded");
  CHECK(doc["type"] == "PyTorch");
  CHECK(logs.out.find("master saw ranks [1, 2]") != std::string::npos);
  std::set<std::string> gpus, ports;
  for (int r = 0; r < 3; ++r) {
    const std::string rank = std::to_string(r);
    auto pos = logs.out.find("GROUP_RANK=0 LOCAL_RANK=" + rank + " LOCAL_WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=");
    REQUIRE(pos != std::string::npos);
    auto line = logs.out.substr(pos, logs.out.find('\n', pos) - pos);
    CHECK(line.find(" RANK=" + rank + " WORLD_SIZE=3") != std::string::npos);
    auto gpu_at = logs.out.rfind("CUDA_VISIBLE_DEVICES=", pos);
    gpus.insert(logs.out.substr(gpu_at + 21, 1));
    ports.insert(line.substr(line.find("MASTER_PORT=") + 12, line.find(" RANK=") - line.find("MASTER_PORT=") - 12));
  }
  CHECK(gpus.size() == 3);   // one GPU per process
  CHECK(ports.size() == 1);  // one rendezvous port for all
  CHECK(*ports.begin() != "0");

  auto describe = l.run({"describe", "job", "ddp"});
  INFO(describe.out);
  CHECK(describe.out.find("ddp-master-0") != std::string::npos);
  CHECK(describe.out.find("ddp-worker-1") != std::string::npos);
  CHECK(describe.out.find("IS DISTRIBUTED WORKLOAD: true") != std::string::npos);
  CHECK(describe.out.find("TOTAL REQUESTED GPUS:    3") != std::string::npos);
  auto list = l.run({"list"});
  CHECK(list.out.find("PyTorch") != std::string::npos);
  CHECK(l.run({"logs", "ddp", "--pod", "ddp-worker-0"}).code == 2);  // one log for all ranks
  CHECK(l.run({"delete", "job", "ddp"}).code == 0);
  CHECK(l.run({"describe", "job", "ddp"}).code != 0);
}

TEST_CASE("a PyTorch job fails when one rank fails, and the others are stopped", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  auto s = l.run({"submit-dist", "pytorch", "bad", "--workers", "1", "-i", "x", "--command", "--", "/bin/sh", "-c",
                  "if [ \"$RANK\" = 1 ]; then exit 3; fi; sleep 60"});
  REQUIRE(s.code == 0);
  auto doc = l.wait_status("bad", {"Succeeded", "Failed"}, "default", 30);
  CHECK(doc.value("status", "") == "Failed");
  CHECK(doc["exitCode"] == 3);
}
