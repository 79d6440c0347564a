// lanectl refuses what the API server would refuse before it sends anything: a usage error
// (exit 2) naming the flag, and no write reaches the test API server.
#include <catch2/catch.hpp>

#include <string>

#include "fake_server.h"
#include "support/lanectl_runner.h"

namespace {

int writes(lane::test::FakeApiServer& server) {
  int n = 0;
  for (const auto& r : server.requests())
    if (r["method"] != "GET") ++n;
  return n;
}

struct Case {
  const char* args;
  const char* message;
};

}  // namespace

TEST_CASE("kube cli: bad quantities, names, node ports and mount paths are refused before any request", "[submit_kube][slow]") {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli(server.url());
  REQUIRE(cli.run_shell("project create lane-detection --gpu-quota 3").code == 0);
  REQUIRE(cli.run_shell("config project lane-detection").code == 0);
  auto c = GENERATE(values<Case>({
      {"submit --name q -i busybox --cpu lots", "--cpu 'lots': not a Kubernetes quantity"},
      {"submit --name q -i busybox --memory 2GB", "--memory '2GB': not a Kubernetes quantity; use e.g. 2G (10^N bytes) or 2Gi"},
      {"submit --name 1job -i busybox --port 8888 -s nodeport", "invalid job name (--name) '1job': must start with a letter"},
      {"submit --name nb -i busybox --port 8080:8888 -s nodeport", "--port '8080:8888': with --service-type nodeport"},
      {"submit --name dup -i busybox --pvc azurenetappfiles:1Gi:/mnt -v /data:/mnt", "--pvc #1 and -v #1 both mount at '/mnt'"},
      {"submit --name shm -i busybox --large-shm -v /data:/dev/shm", "-v #1 and --large-shm both mount at '/dev/shm'"},
      {"submit --name up -i busybox -v /data/../etc:/in", "the host path must not contain '..'"},
      {"submit --name root -i busybox -v /data:/", "the mount path '/' would hide the image's whole filesystem"},
      {"submit-mpi --name m -i busybox --processes 2 --pvc azurenetappfiles:1Gi:/mnt/../x", "must not contain '..'"},
      {"submit --name size -i busybox --pvc azurenetappfiles:100GB:/mnt", "--pvc"},
  }));
  INFO(c.args);
  const int before = writes(server);
  auto r = cli.run_shell(c.args);
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.find(c.message) != std::string::npos);
  CHECK(writes(server) == before);  // nothing was sent
}
