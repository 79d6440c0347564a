// The Kubernetes backend's JobFiles role (the dashboard's job page): a job's files read by exec in
// its chief pod (the test API server's container answers realpath/stat/head/tail/find/printenv
// from /_test/files), symbolic links refused, caps kept, and a pod that does not run said so.
#include <catch2/catch.hpp>

#include <set>

#include "kube_backend_fixture.h"
#include "submit/kube/kube_backend.h"

using namespace lane::submit;
using Json = nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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

TEST_CASE("kube job files: read in the running chief pod, links refused, sizes capped") {
  lane::test::KubeBackendFixture f;
  f.backend.jobs().submit(train_job("train", {{"OUTPUT_DIR", "/mnt/runs"}}));
  const std::string pod = pod_of(f.backend, "train");
  f.server.control("/_test/files",
                   {{"namespace", "runai-lane-detection"},
                    {"pod", pod},
                    {"files",
                     {{"/mnt/runs/metrics.jsonl", "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n"},
                      {"/mnt/runs/digits", "0123456789"},
                      {"/mnt/runs/overlays/a.png", "png"},
                      {"/etc/passwd", "root:x:0:0"}}},
                    {"links", {{"/mnt/runs/link", "/etc/passwd"}, {"/mnt/runs/up", "/etc"}}}});
  JobFiles& files = f.backend.job_files();
  std::string why;
  CHECK(files.output_dir("train", "lane-detection", why) == "/mnt/runs");

  auto m = files.read_file("train", "lane-detection", "/mnt/runs/metrics.jsonl", 1 << 20, false);
  REQUIRE(m.ok);
  CHECK(m.data == "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n");
  CHECK(m.size == m.data.size());
  CHECK(m.modified_unix_ms == 1700000000000);
  auto head = files.read_file("train", "lane-detection", "/mnt/runs/digits", 4, false);
  REQUIRE(head.ok);
  CHECK(head.data == "0123");
  CHECK(head.truncated());
  auto tail = files.read_file("train", "lane-detection", "/mnt/runs/digits", 3, true);
  REQUIRE(tail.ok);
  CHECK(tail.data == "789");

  auto link = files.read_file("train", "lane-detection", "/mnt/runs/link", 100, false);
  CHECK_FALSE(link.ok);
  CHECK(has(link.reason, "symbolic link"));
  CHECK_FALSE(has(link.data, "root"));
  auto through = files.read_file("train", "lane-detection", "/mnt/runs/up/passwd", 100, false);
  CHECK_FALSE(through.ok);
  CHECK(has(through.reason, "symbolic link"));
  auto missing = files.read_file("train", "lane-detection", "/mnt/runs/none", 100, false);
  CHECK_FALSE(missing.ok);
  CHECK(has(missing.reason, "does not exist"));
  auto dir = files.read_file("train", "lane-detection", "/mnt/runs/overlays", 100, false);
  CHECK_FALSE(dir.ok);
  CHECK(has(dir.reason, "not a regular file"));
  auto dotdot = files.read_file("train", "lane-detection", "/mnt/runs/../../etc/passwd", 100, false);
  CHECK_FALSE(dotdot.ok);
  CHECK(has(dotdot.reason, "not a clean absolute path"));

  auto list = files.list_dir("train", "lane-detection", "/mnt/runs", 100);
  REQUIRE(list.ok);
  std::set<std::string> names;
  for (const auto& e : list.entries) names.insert(e.name);
  CHECK(names == std::set<std::string>{"metrics.jsonl", "digits"});
  auto one = files.list_dir("train", "lane-detection", "/mnt/runs", 1);
  CHECK(one.entries.size() == 1);
  CHECK(one.truncated);
  auto ov = files.list_dir("train", "lane-detection", "/mnt/runs/overlays", 10);
  REQUIRE(ov.ok);
  REQUIRE(ov.entries.size() == 1);
  CHECK(ov.entries[0].name == "a.png");
  CHECK(ov.entries[0].size == 3);
  CHECK_FALSE(files.list_dir("train", "lane-detection", "/mnt/runs/up", 10).ok);

  CHECK_FALSE(files.output_dir("nojob", "lane-detection", why));
  CHECK(why == "the job does not exist");
  auto nojob = files.read_file("nojob", "lane-detection", "/mnt/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(nojob.ok);
  CHECK(has(nojob.reason, "does not exist"));
}

TEST_CASE("kube job files: OUTPUT_DIR from the container environment, and a pod that does not run is a reason") {
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
