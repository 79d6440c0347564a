// lanectl volume list|describe|delete and snapshot create on the Kubernetes backend: PVCs of the
// project's namespace, the jobs that mount them, and a CSI snapshot reported by what is known of
// it (its PVC and size; no file counts).
#include <catch2/catch.hpp>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"

namespace {

using lane::test::has;

bool client_has_pvc(const lane::test::FakeApiServer& server) {
  lane::kube::KubeClient client(server.connection());
  return client.try_get(lane::kube::resources::kPvc, "runai-team", "pvc-data-0").has_value();
}

}  // namespace

TEST_CASE("kube cli: volume list, describe and delete over PVCs, snapshot create prints what CSI knows",
          "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli(server.url());
  REQUIRE(cli.run_shell("project create team --gpu-quota 1").code == 0);
  auto r = cli.run_shell("submit data -p team --pvc azurenetappfiles:100Gi:/mnt --image busybox");
  INFO(r.out);
  REQUIRE(r.code == 0);

  r = cli.run_shell("volume list -p team");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "pvc-data-0"));
  CHECK(has(r.out, "100Gi"));
  CHECK(has(r.out, "job data"));
  CHECK(has(r.out, "data ("));
  r = cli.run_shell("volume describe pvc-data-0 -p team -o json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["project"] == "team");
  CHECK(doc["storageClass"] == "azurenetappfiles");
  CHECK(doc["usedBytes"].is_null());  // not measurable from here
  CHECK(doc["usedBy"][0]["job"] == "data");

  const size_t before = server.requests().size();
  r = cli.run_shell("snapshot create --pvc pvc-data-0 -p team --name s1");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "Snapshot s1 of PVC pvc-data-0 created in namespace runai-team (size 100.0 GiB)\n"));
  CHECK_FALSE(has(r.out, "files"));
  // Only what deploy/rbac/snapshot-rbac.yaml's Role grants (the in-pod end-of-training snapshot
  // runs with it): volumesnapshots, persistentvolumeclaims, configmaps of the namespace.
  const auto log = server.requests();
  for (size_t i = before; i < log.size(); ++i) {
    const std::string path = log[i].value("path", "");
    INFO(log[i].value("method", "") << " " << path);
    CHECK((has(path, "/namespaces/runai-team/volumesnapshots") || has(path, "/namespaces/runai-team/persistentvolumeclaims") ||
           has(path, "/namespaces/runai-team/configmaps")));
  }

  REQUIRE(doc["usedBy"][0]["status"] == "Running");  // the test server runs the Job's pod
  r = cli.run_shell("volume delete pvc-data-0 -p team");
  CHECK(r.code == 2);
  CHECK(has(r.out, "lanectl delete data -p team"));
  CHECK(client_has_pvc(server));
  REQUIRE(cli.run_shell("delete job data -p team").code == 0);
  r = cli.run_shell("volume delete pvc-data-0 -p team");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_FALSE(client_has_pvc(server));
  CHECK(cli.run_shell("volume delete pvc-data-0 -p team").code == 1);
}
