// The seed's command lines, with lanectl in place of runai, through the real binary with the
// kubernetes backend against the test API server (kubeconfig via KUBECONFIG).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "fake_server.h"
#include "lanectl_runner.h"
#include "kube/kube_client.h"
#include "test_paths.h"

namespace {

using Cli = lane::test::LanectlRunner;

}  // namespace

TEST_CASE("kube cli: the seed workflow with lanectl in place of runai") {
  lane::test::FakeApiServer server;
  Cli cli(server);
  auto r = cli.run("project create lane-detection --gpu-quota 3");
  INFO(r.out);
  REQUIRE(r.rc == 0);
  REQUIRE(cli.run("config project lane-detection").rc == 0);

  r = cli.run("submit --name download-tusimple-data --pvc azurenetappfiles:100Gi:/mnt "
              "--image muneer7589/download-tusimple:1.0");
  INFO(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("download-tusimple-data") != std::string::npos);

  const std::string mpi =
      "submit-mpi --name dist-lane-detection-training --large-shm --processes=3 --gpu 1 "
      "--pvc pvc-download-tusimple-data-0:/mnt --image muneer7589/dist-lane-detection:3.1 "
      "-e USE_WORKERS=\"true\" -e NUM_WORKERS=4 -e BATCH_SIZE=33 -e USE_VAL=\"false\" -e VAL_BATCH_SIZE=99 "
      "-e ENABLE_SNAPSHOT=\"true\" -e PVC_NAME=\"pvc-download-tusimple-data-0\"";
  r = cli.run(mpi + " --dry-run -o yaml");
  INFO(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("kind: MPIJob") != std::string::npos);
  CHECK(r.out.find("apiVersion: kubeflow.org/v2beta1") != std::string::npos);
  lane::kube::KubeClient client(server.connection());
  CHECK(client.list(lane::kube::resources::kMpiJob, "runai-lane-detection").items.empty());  // dry run

  r = cli.run(mpi);
  INFO(r.out);
  REQUIRE(r.rc == 0);
  auto job = client.get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist-lane-detection-training");
  CHECK(job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 3);

  r = cli.run("list");
  INFO(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("dist-lane-detection-training") != std::string::npos);
  CHECK(r.out.find("download-tusimple-data") != std::string::npos);
  CHECK(r.out.find("Mpi") != std::string::npos);

  r = cli.run("logs dist-lane-detection-training --tail 1");
  INFO(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out == "[1,0]<stdout>:epoch 10\n");

  r = cli.run("describe job dist-lane-detection-training");
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(r.out.find("dist-lane-detection-training-worker-2") != std::string::npos);

  // snapshot/restore verbs: not registered in lanectl's command line yet; the same operations
  // are tested through the SnapshotStore in test_kube_snapshots.cpp.

  r = cli.run("submit --name x --gpu 1.5 --image busybox");
  CHECK(r.rc == 2);  // usage error names the flag
  CHECK(r.out.find("--gpu") != std::string::npos);

  r = cli.run("delete job dist-lane-detection-training");
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK_FALSE(client.try_get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist-lane-detection-training"));
}

TEST_CASE("kube cli: --kubeconfig and --context choose the cluster, before or after the verb") {
  lane::test::FakeApiServer server;
  Cli cli(server);  // KUBECONFIG points to a kubeconfig whose only context is the test server
  // A second kubeconfig: its current context is a cluster nobody listens on; context "test" is
  // the test server.
  lane::test::TempDir dir;
  const std::string other = (dir.path / "other-kubeconfig").string();
  std::ofstream(other) << "apiVersion: v1\nkind: Config\ncurrent-context: down\nclusters:\n"
                          "- name: down\n  cluster: {server: 'http://127.0.0.1:1'}\n"
                          "- name: test\n  cluster: {server: '" << server.url() << "'}\n"
                          "users:\n- name: u\n  user: {}\ncontexts:\n"
                          "- name: down\n  context: {cluster: down, user: u}\n"
                          "- name: test\n  context: {cluster: test, user: u}\n";
  // --kubeconfig replaces $KUBECONFIG: its current context is the unreachable one.
  auto r = cli.run("--kubeconfig " + other + " project create via-other --gpu-quota 1");
  INFO(r.out);
  CHECK(r.rc == 1);
  CHECK(r.out.find("127.0.0.1:1") != std::string::npos);
  // --context picks the test server's context in that file, as a global flag before the verb...
  r = cli.run("--kubeconfig " + other + " --context test project create via-other --gpu-quota 1");
  INFO(r.out);
  CHECK(r.rc == 0);
  lane::kube::KubeClient client(server.connection());
  CHECK(client.try_get(lane::kube::resources::kNamespace, "", "runai-via-other"));
  // ... or after it, in the --flag=value form too.
  r = cli.run("project list --kubeconfig=" + other + " --context=test");
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(r.out.find("via-other") != std::string::npos);
  // A context the kubeconfig does not define, and a file that does not exist, are named.
  r = cli.run("project list --context nosuch");
  CHECK(r.rc != 0);
  CHECK(r.out.find("context 'nosuch' is not defined in the kubeconfig") != std::string::npos);
  r = cli.run("project list --kubeconfig " + (dir.path / "missing").string());
  CHECK(r.rc == 2);
  CHECK(r.out.find("--kubeconfig '" + (dir.path / "missing").string() + "': no such file") != std::string::npos);
}
