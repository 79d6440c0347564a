// submit-dist pytorch on Kubernetes: a kubeflow.org/v1 PyTorchJob that the test API server
// validates against its PyTorchJob CRD (tests/kube/crds), then list, describe, logs, suspend and
// delete on it, through the real binary.
#include <catch2/catch.hpp>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"

namespace {

using Cli = lane::test::Lanectl;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

using lane::test::has;

}  // namespace

TEST_CASE("kube pytorch: submit-dist pytorch creates a PyTorchJob the CRD accepts, and list, describe, logs, delete work on it",
          "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 4").code == 0);
  auto r = cli.run_shell("submit-dist pytorch ddp -p p -i pytorch/pytorch:2.1 --workers 2 -g 1 "
                         "--clean-pod-policy All --ttl-after-finish 1h -e EPOCHS=3 --command -- python3 train.py");
  INFO(r.out);
  REQUIRE(r.code == 0);
  lane::kube::KubeClient client(server.connection());
  Json job = client.get(res::kPyTorchJob, "runai-p", "ddp");
  CHECK(job["apiVersion"] == "kubeflow.org/v1");
  const Json& replicas = job["spec"]["pytorchReplicaSpecs"];
  CHECK(replicas["Master"]["replicas"] == 1);
  CHECK(replicas["Worker"]["replicas"] == 2);
  CHECK(replicas["Worker"]["restartPolicy"] == "Never");
  const Json& c = replicas["Worker"]["template"]["spec"]["containers"][0];
  CHECK(c["name"] == "pytorch");
  CHECK(c["resources"]["limits"]["nvidia.com/gpu"] == "1");
  CHECK(c["command"] == Json::array({"python3", "train.py"}));
  CHECK(job["spec"]["runPolicy"] == Json{{"cleanPodPolicy", "All"}, {"backoffLimit", 6}, {"ttlSecondsAfterFinished", 3600}});
  CHECK(job["metadata"]["annotations"]["totalGPUs"] == "3");
  CHECK(job["metadata"]["labels"]["kai.scheduler/queue"] == "p");

  // The stored object passes the CRD's schema; the same object with a misspelled field does not.
  Json stored = job;
  stored.erase("status");
  auto v = server.control("/_test/validate", stored);
  CHECK(v["validated"] == true);
  CHECK(v["errors"].empty());
  stored["spec"]["pytorchReplicaSpecs"]["Master"]["replicaz"] = 1;
  stored["spec"]["runPolicy"]["cleanPodPolicy"] = "Sometimes";
  v = server.control("/_test/validate", stored);
  CHECK(v["errors"].size() == 2);

  r = cli.run_shell("list -p p");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "ddp"));
  CHECK(has(r.out, "PyTorch"));
  CHECK(has(r.out, "Running"));
  r = cli.run_shell("describe job ddp -p p");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "ddp-master-0"));
  CHECK(has(r.out, "ddp-worker-1"));
  CHECK(has(r.out, "pytorchjob/ddp"));  // the operator's conditions, as events
  r = cli.run_shell("logs ddp -p p");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "ddp-master-0: WORLD_SIZE=3\n");  // the master's pod

  r = cli.run_shell("suspend ddp -p p");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(client.get(res::kPyTorchJob, "runai-p", "ddp")["spec"]["runPolicy"]["suspend"] == true);
  REQUIRE(cli.run_shell("resume ddp -p p").code == 0);

  server.control("/_test/finish", {{"kind", "PyTorchJob"}, {"namespace", "runai-p"}, {"name", "ddp"}});
  r = cli.run_shell("list -p p");
  CHECK(has(r.out, "Succeeded"));

  r = cli.run_shell("delete job ddp -p p");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_FALSE(client.try_get(res::kPyTorchJob, "runai-p", "ddp"));
  CHECK(cli.run_shell("describe job ddp -p p").code != 0);
}

TEST_CASE("kube pytorch: --dry-run renders Master alone with --workers 0, and bad sizes are refused",
          "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 4").code == 0);
  auto r = cli.run_shell("submit-dist pytorch solo -p p -i img --workers 0 --dry-run -o json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  Json doc = Json::parse(r.out);
  const Json& job = doc["items"].back();
  CHECK(job["kind"] == "PyTorchJob");
  CHECK(job["spec"]["pytorchReplicaSpecs"].size() == 1);
  CHECK(server.control("/_test/validate", job)["errors"].empty());
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"submit-dist pytorch b -p p -i x --workers -1", "--workers -1: use 0 or more"},
           {"submit-dist pytorch b -p p -i x -g 0.5", "each PyTorch worker needs whole GPUs"},
           {"submit-dist pytorch b -p p -i x --interactive", "--interactive is not available for submit-dist pytorch"},
           {"submit-dist pytorch b -p p -i x --completions 2", "not available for submit-dist pytorch"},
           {"submit-dist -p p -i x", "see `lanectl submit-dist --help`"}}) {
    r = cli.run_shell(line);
    INFO(line << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(has(r.out, message));
  }
}
