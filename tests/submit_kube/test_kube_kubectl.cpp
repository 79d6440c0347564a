// kubectl habits on the Kubernetes backend (issue 31, item 5), through the real binary against
// the test API server: --label/--annotation on the objects, list -l, and wait --for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "support/lanectl_runner.h"

namespace {

using Cli = lane::test::Lanectl;
namespace resources = lane::kube::resources;

// Project vision with job trainer (a 1Gi claim at /mnt) running, its pod holding `files` and `links`.
void start_trainer(lane::test::FakeApiServer& server, const Cli& cli, const nlohmann::json& files,
                   const nlohmann::json& links) {
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  REQUIRE(cli.run_shell("submit trainer -p vision -i busybox --pvc :1Gi:/mnt --command -- sleep 60").code == 0);
  const auto job = nlohmann::json::parse(cli.run_shell("describe job trainer -p vision -o json").out);
  REQUIRE_FALSE(job["pods"].empty());
  server.control("/_test/files",
                 {{"namespace", "runai-vision"}, {"pod", job["pods"][0]["name"]}, {"files", files}, {"links", links}});
}

// The names of the jobs `list -p vision -l SELECTOR` prints, each followed by a space.
std::string listed_names(const Cli& cli, const std::string& selector) {
  auto listed = cli.run_shell("list -p vision -o json -l '" + selector + "'");
  INFO(listed.out);
  const auto doc = nlohmann::json::parse(listed.out);
  std::string out;
  for (const auto& item : doc["items"]) out += item["name"].get<std::string>() + " ";
  return out;
}

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

  CHECK(listed_names(cli, "team=vision") == "tuned ");
  CHECK(listed_names(cli, "team") == "ranks tuned ");
  CHECK(listed_names(cli, "!team") == "plain ");
  CHECK(listed_names(cli, "team notin (vision)") == "plain ranks ");
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
  start_trainer(server, cli, {{"/mnt/runs/metrics.jsonl", "{\"loss\":0.25}\n"}, {"/etc/passwd", "root"}},
                {{"/mnt/runs/link", "/etc/passwd"}});
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

TEST_CASE("kube cli: cp copies a file into a job's volume through tar in its chief pod", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  start_trainer(server, cli, {{"/mnt/runs/metrics.jsonl", "{}"}, {"/etc/passwd", "root"}},
                {{"/mnt/runs/link", "/etc/passwd"}, {"/mnt/etc", "/etc"}});
  const std::string local = cli.home().string() + "/config.yaml";
  std::ofstream(local) << "lr: 0.01\n";
  auto r = cli.run_shell("cp " + local + " trainer:/mnt/runs/config.yaml -p vision");
  INFO(r.out);
  CHECK(r.code == 0);
  r = cli.run_shell("cp trainer:/mnt/runs/config.yaml " + local + ".back -p vision");
  CHECK(r.code == 0);
  CHECK(lane::test::slurp(local + ".back") == "lr: 0.01\n");
  r = cli.run_shell("cp " + local + " trainer:/mnt/runs -p vision");  // into the directory, as config.yaml
  CHECK(r.code == 0);
  r = cli.run_shell("cp " + local + " trainer:/mnt/etc/passwd -p vision");  // a directory link on the way
  CHECK(r.code == 1);
  CHECK(r.out.find("links are not followed") != std::string::npos);
  r = cli.run_shell("cp " + local + " trainer:/mnt/runs/link -p vision");  // the link is replaced, not followed
  CHECK(r.code == 0);
  r = cli.run_shell("cp trainer:/mnt/runs/link " + local + ".link -p vision");
  CHECK(r.code == 0);
  CHECK(lane::test::slurp(local + ".link") == "lr: 0.01\n");
  // What went into the pod: tar on stdin into the claim's directory, then one rename; never a write to /etc.
  std::vector<std::string> commands;
  for (const auto& q : server.requests())
    if (std::string(q["path"]).find("/exec") != std::string::npos && q["query"].contains("command"))
      commands.push_back(q["query"]["command"]);
  CHECK(std::count(commands.begin(), commands.end(), "tar") == 3);
  CHECK(std::count(commands.begin(), commands.end(), "mv") == 3);
}

namespace {

// The GETs among the server's `requests` for a collection path ending in `/plural`: lists
// (no watch=1) or watches.
std::vector<nlohmann::json> collection_gets(const std::vector<nlohmann::json>& requests, const std::string& plural,
                                            bool watches) {
  std::vector<nlohmann::json> out;
  const std::string tail = "/" + plural;
  for (const auto& r : requests) {
    const std::string path = r["path"];
    if (r["method"] != "GET" || path.size() < tail.size() || path.compare(path.size() - tail.size(), tail.size(), tail))
      continue;
    if (r["query"].value("watch", "") == (watches ? "1" : "")) out.push_back(r);
  }
  return out;
}

std::vector<nlohmann::json> requests_since(lane::test::FakeApiServer& server, size_t from) {
  const auto all = server.requests();
  return std::vector<nlohmann::json>(all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end());
}

// Waits (up to 20 s) until the file at `path` holds `part`.
bool file_gets(const std::filesystem::path& path, const std::string& part) {
  for (int i = 0; i < 200; ++i) {
    if (lane::test::slurp(path).find(part) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace

TEST_CASE("kube cli: list -l sends the selector to the API server as labelSelector", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  REQUIRE(cli.run_shell("submit tuned -p vision -i busybox --label team=vision --command -- sleep 60").code == 0);
  REQUIRE(cli.run_shell("submit plain -p vision -i busybox --label team=infra --command -- sleep 60").code == 0);
  REQUIRE(cli.run_shell("submit-mpi ranks -p vision -i busybox --processes 2 --label team=nlp --command -- true").code == 0);
  auto names = [&](const std::string& selector) {
    const size_t before = server.requests().size();
    const std::string out = listed_names(cli, selector);
    const auto sent = requests_since(server, before);
    for (const char* plural : {"jobs", "mpijobs"}) {
      const auto lists = collection_gets(sent, plural, false);
      REQUIRE(lists.size() == 1);
      CHECK(lists[0]["query"].value("labelSelector", "") != "");
    }
    return out;
  };
  CHECK(names("team=vision") == "tuned ");
  CHECK(names("team!=vision") == "plain ranks ");
  CHECK(names("team in (vision, nlp)") == "ranks tuned ");
  CHECK(names("team notin (vision,nlp)") == "plain ");
  CHECK(names("!team") == "");
  CHECK(names("team,team!=infra") == "ranks tuned ");
  const size_t before = server.requests().size();
  REQUIRE(cli.run_shell("list -p vision -l 'team in (vision, nlp)'").code == 0);
  const auto lists = collection_gets(requests_since(server, before), "jobs", false);
  REQUIRE(lists.size() == 1);
  CHECK(lists[0]["query"]["labelSelector"] == "team in (vision,nlp)");
}

TEST_CASE("kube cli: list -w watches from the list's version instead of listing again", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create vision --gpu-quota 4").code == 0);
  REQUIRE(cli.run_shell("submit first -p vision -i busybox --command -- sleep 60").code == 0);
  const bool relist = GENERATE(false, true);
  if (relist)  // the first watch of Jobs answers 410 Gone: the watcher lists Jobs again and goes on
    server.fault({{"method", "GET"}, {"path", "/namespaces/runai-vision/jobs?watch=1"}, {"action", "gone"}, {"count", 1}});
  cli.set_env("LANECTL_WATCH_SECONDS", "5");
  const size_t start = server.requests().size();
  const pid_t pid = cli.start({"list", "-p", "vision", "-w"}, "watch");
  const auto out_file = cli.home() / ".out" / "watch.out";
  REQUIRE(file_gets(out_file, "first"));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the watches are open
  const size_t before_submit = server.requests().size();
  REQUIRE(cli.run_shell("submit second -p vision -i busybox --command -- sleep 60").code == 0);
  const size_t after_submit = server.requests().size();
  server.control("/_test/finish", {{"kind", "Job"}, {"namespace", "runai-vision"}, {"name", "first"}, {"exitCode", 0}});
  const auto r = cli.finish(pid, "watch");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("\nsecond") != std::string::npos);  // made after the watch began
  CHECK(r.out.find("\nfirst  Succeeded") != std::string::npos);
  // The watcher's own requests: before the submit and after it (the submit's are left out).
  const auto all = server.requests();
  std::vector<nlohmann::json> mine(all.begin() + static_cast<std::ptrdiff_t>(start),
                                   all.begin() + static_cast<std::ptrdiff_t>(before_submit));
  mine.insert(mine.end(), all.begin() + static_cast<std::ptrdiff_t>(after_submit), all.end());
  for (const char* plural : {"jobs", "mpijobs", "pods"}) {
    INFO(plural);
    const auto lists = collection_gets(mine, plural, false);
    CHECK(lists.size() == (relist && std::string(plural) == "jobs" ? 2u : 1u));
    const auto watches = collection_gets(mine, plural, true);
    REQUIRE_FALSE(watches.empty());
    CHECK(watches.size() <= 3u);
    CHECK(watches[0]["query"].value("resourceVersion", "") != "");
    CHECK(watches[0]["query"].value("allowWatchBookmarks", "") == "true");
  }
}
