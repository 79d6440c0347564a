// kubectl habits on the Kubernetes backend (issue 31, item 5), through the real binary against
// the test API server: --label/--annotation on the objects, list -l, and wait --for.
#include <catch2/catch.hpp>

#include <fstream>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "support/lanectl_runner.h"

namespace {

using Cli = lane::test::Lanectl;
namespace resources = lane::kube::resources;

}  // namespace

TEST_CASE("kube cli: --label and --annotation reach the workload and its pods and list -l selects", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  auto r = cli.run_shell("submit tuned -p vision -i busybox --label team=vision --label example.com/stage=tune "
                         "--annotation 'note=lr sweep, run 3' --command -- sleep 60");
  INFO(r.out);
  REQUIRE(r.code == 0);
  REQUIRE(cli.run_shell("submit plain -p vision -i busybox --command -- sleep 60").code == 0);
  r = cli.run_shell("submit-mpi ranks -p vision -i busybox --processes 2 --label team=nlp --command -- true");
  INFO(r.out);
  REQUIRE(r.code == 0);

  lane::kube::KubeClient client(server.connection());
  const auto job = client.get(resources::kJob, "runai-vision", "tuned");
  CHECK(job["metadata"]["labels"]["team"] == "vision");
  CHECK(job["metadata"]["labels"]["example.com/stage"] == "tune");
  CHECK(job["metadata"]["labels"]["lanectl.io/job"] == "tuned");  // lanectl's own labels stay
  CHECK(job["spec"]["template"]["metadata"]["labels"]["team"] == "vision");
  CHECK(job["metadata"]["annotations"]["note"] == "lr sweep, run 3");
  const auto mpi = client.get(resources::kMpiJob, "runai-vision", "ranks");
  CHECK(mpi["metadata"]["labels"]["team"] == "nlp");
  CHECK(mpi["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["metadata"]["labels"]["team"] == "nlp");

  auto names = [&](const std::string& selector) {
    auto listed = cli.run_shell("list -p vision -o json -l '" + selector + "'");
    INFO(listed.out);
    const auto doc = nlohmann::json::parse(listed.out);
    std::string out;
    for (const auto& item : doc["items"]) out += item["name"].get<std::string>() + " ";
    return out;
  };
  CHECK(names("team=vision") == "tuned ");
  CHECK(names("team") == "ranks tuned ");
  CHECK(names("!team") == "plain ");
  CHECK(names("team notin (vision)") == "plain ranks ");
  r = cli.run_shell("describe job tuned -p vision");
  CHECK(r.out.find("example.com/stage=tune, team=vision") != std::string::npos);
}

TEST_CASE("kube cli: wait --for=condition=Succeeded|Failed", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  REQUIRE(cli.run_shell("submit done -p vision -i busybox --command -- true").code == 0);
  REQUIRE(cli.run_shell("submit waits -p vision -i busybox --command -- sleep 60").code == 0);
  server.control("/_test/finish", {{"kind", "Job"}, {"namespace", "runai-vision"}, {"name", "done"}, {"exitCode", 0}});
  auto r = cli.run_shell("wait --for=condition=Succeeded done -p vision --timeout 20s");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "job/done condition met\n");
  r = cli.run_shell("wait --for=condition=Failed done -p vision");
  CHECK(r.code == 1);
  CHECK(r.out.find("job done is Succeeded; it can never be Failed") != std::string::npos);
  r = cli.run_shell("wait --for=condition=Succeeded waits -p vision --timeout 1s");
  CHECK(r.code == 1);
  CHECK(r.out.find("timed out after 1s waiting for job waits to be Succeeded") != std::string::npos);
}

TEST_CASE("kube cli: cp copies a file of a job's volume out of its chief pod", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  REQUIRE(cli.run_shell("submit trainer -p vision -i busybox --pvc :1Gi:/mnt --command -- sleep 60").code == 0);
  const auto job = nlohmann::json::parse(cli.run_shell("describe job trainer -p vision -o json").out);
  REQUIRE_FALSE(job["pods"].empty());
  server.control("/_test/files", {{"namespace", "runai-vision"},
                                  {"pod", job["pods"][0]["name"]},
                                  {"files", {{"/mnt/runs/metrics.jsonl", "{\"loss\":0.25}\n"}, {"/etc/passwd", "root"}}},
                                  {"links", {{"/mnt/runs/link", "/etc/passwd"}}}});
  const std::string out = cli.home().string() + "/metrics.jsonl";
  auto r = cli.run_shell("cp trainer:/mnt/runs/metrics.jsonl " + out + " -p vision");
  INFO(r.out);
  CHECK(r.code == 0);
  std::ifstream in(out);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "{\"loss\":0.25}\n");
  r = cli.run_shell("cp trainer:/mnt/runs/link " + out + ".link -p vision");
  CHECK(r.code == 1);
  r = cli.run_shell("cp trainer:/etc/passwd " + out + ".passwd -p vision");
  CHECK(r.code == 1);
  CHECK(r.out.find("it is on none of the job's volumes") != std::string::npos);
}
