// The Kubernetes backend's JobFiles role (the dashboard's job page): a job's files read by exec in
// its chief pod (the test API server's container answers realpath/stat/head/tail/find/printenv
// from /_test/files), symbolic links refused, caps kept, and a pod that does not run said so.
#include <catch2/catch.hpp>

#include "kube_backend_fixture.h"
#include "submit/kube/kube_backend.h"
#include "support/job_files_contract.h"
#include "support/text_has.h"

using namespace lane::submit;
using Json = nlohmann::json;

namespace {

using lane::test::has;

JobSpec train_job(const std::string& name, std::vector<EnvVar> env) {
  JobSpec s;
  s.name = name;
  s.project = "lane-detection";
  s.image = "muneer7589/dist-lane-detection:3.1";
  s.env = std::move(env);
  s.user = "root";
  return s;
}

std::string pod_of(Backend& b, const std::string& job) {
  auto info = b.jobs().describe_job(job, "lane-detection");
  REQUIRE(info);
  REQUIRE_FALSE(info->pods.empty());
  return info->pods.front().name;
}

}  // namespace

TEST_CASE("kube job files: read in the running chief pod, links refused, sizes capped", "[submit_kube][fast]") {
  lane::test::KubeBackendFixture f;
  f.backend.jobs().submit(train_job("train", {{"OUTPUT_DIR", "/mnt/runs"}}));
  const std::string pod = pod_of(f.backend, "train");
  // The contract's files (tests/support/job_files_contract.h) in the pod's test file system.
  f.server.control("/_test/files",
                   {{"namespace", "runai-lane-detection"},
                    {"pod", pod},
                    {"files",
                     {{"/mnt/runs/metrics.jsonl", lane::test::kMetricsLine},
                      {"/mnt/runs/digits", "0123456789"},
                      {"/mnt/runs/overlays/a.png", "png"},
                      {"/etc/passwd", "root:x:0:0"}}},
                    {"links", {{"/mnt/runs/link", "/etc/passwd"}, {"/mnt/runs/dirlink", "/etc"}}}});
  JobFiles& files = f.backend.job_files();
  lane::test::check_job_files_contract(files, "train", "lane-detection");
  // The test server's clock: the pod's stat answers a fixed time.
  CHECK(files.read_file("train", "lane-detection", "/mnt/runs/digits", 1, false).modified_unix_ms == 1700000000000);
}

TEST_CASE("kube job files: OUTPUT_DIR from the container environment, and a pod that does not run is a reason", "[submit_kube][fast]") {
  lane::test::KubeBackendFixture f;
  f.backend.jobs().submit(train_job("img", {}));
  const std::string pod = pod_of(f.backend, "img");
  f.server.control("/_test/files", {{"namespace", "runai-lane-detection"},
                                    {"pod", pod},
                                    {"files", {{"/mnt/runs/metrics.jsonl", "{}\n"}}},
                                    {"env", {{"OUTPUT_DIR", "/mnt/runs"}}}});
  JobFiles& files = f.backend.job_files();
  std::string why;
  CHECK(files.output_dir("img", "lane-detection", why) == "/mnt/runs");  // the image's default, by printenv

  Json p = f.client->get(lane::kube::resources::kPod, "runai-lane-detection", pod);
  p["status"]["phase"] = "Succeeded";
  f.server.control("/_test/object", p);
  auto done = files.read_file("img", "lane-detection", "/mnt/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(done.ok);
  CHECK(has(done.reason, "pod " + pod + " is Succeeded"));
  CHECK_FALSE(files.output_dir("img", "lane-detection", why));  // no env, and no running container to ask
  CHECK(has(why, "pod " + pod + " is Succeeded"));
  auto list = files.list_dir("img", "lane-detection", "/mnt/runs", 10);
  CHECK_FALSE(list.ok);
  CHECK(has(list.reason, "while it runs"));

  f.client->remove(lane::kube::resources::kPod, "runai-lane-detection", pod);
  auto gone = files.read_file("img", "lane-detection", "/mnt/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(gone.ok);
  CHECK(has(gone.reason, "no pod"));
}
