// Kubernetes backend, through the real binary against the test API server: `config project`
// writes the context's namespace, a runai-X context namespace selects project X, suspend/resume
// set the workloads' suspend fields, `logs -f` reports a deleted job, nodes, whoami, -o wide.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "kube/kubeconfig.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"
#include "test_paths.h"

namespace {

using Cli = lane::test::Lanectl;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

using lane::test::has;

// A kubeconfig with two contexts on the test server, a token and a preferences section that a
// rewrite must keep.
std::string write_kubeconfig(const std::filesystem::path& dir, const lane::test::FakeApiServer& server,
                             const std::string& aks_namespace = "") {
  const std::string path = (dir / "kubeconfig").string();
  std::ofstream(path) << "apiVersion: v1\nkind: Config\npreferences: {colors: true}\ncurrent-context: aks\n"
                         "clusters:\n- name: aks\n  cluster: {server: '" << server.url() << "'}\n"
                         "users:\n- name: researcher\n  user: {token: s3cret-t0ken}\ncontexts:\n"
                         "- name: aks\n  context: {cluster: aks, user: researcher"
                      << (aks_namespace.empty() ? "" : ", namespace: " + aks_namespace) << "}\n"
                      << "- name: other\n  context: {cluster: aks, user: researcher, namespace: team}\n";
  chmod(path.c_str(), 0600);
  return path;
}

std::string context_namespace(const std::string& file, const std::string& context) {
  lane::kube::KubeconfigOptions o;
  o.kubeconfig_env = file;
  o.context = context;
  return lane::kube::load_kubeconfig(o).ns;
}

// The pod the test server made for batch Job `job` in runai-p.
Json job_pod(lane::kube::KubeClient& client, const std::string& job) {
  lane::kube::ListOptions o;
  o.label_selector = "job-name=" + job;
  return client.list(res::kPod, "runai-p", o).items.at(0);
}

}  // namespace

TEST_CASE("kube verbs: config project sets the context namespace and a runai-X namespace selects X", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::TempDir dir;
  const std::string kc = write_kubeconfig(dir.path, server);
  Cli cli(server.url());
  const std::string flag = " --kubeconfig " + kc;
  REQUIRE(cli.run_shell("project create lane-detection --gpu-quota 1" + flag).code == 0);
  REQUIRE(cli.run_shell("project create team-b --gpu-quota 1" + flag).code == 0);

  auto r = cli.run_shell("config project lane-detection" + flag);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "Project lane-detection has been set as default project\n"));
  CHECK(context_namespace(kc, "aks") == "runai-lane-detection");
  CHECK(context_namespace(kc, "other") == "team");  // other contexts untouched
  std::ifstream in(kc);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(has(text, "colors: true"));                 // the rest of the file is kept
  CHECK(has(text, "s3cret-t0ken"));
  struct stat st {};
  REQUIRE(stat(kc.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // --context picks the context whose namespace changes.
  REQUIRE(cli.run_shell("config project team-b --context other" + flag).code == 0);
  CHECK(context_namespace(kc, "other") == "runai-team-b");
  CHECK(context_namespace(kc, "aks") == "runai-lane-detection");
  CHECK(cli.run_shell("config project nosuch" + flag).code == 2);
  CHECK(context_namespace(kc, "aks") == "runai-lane-detection");

  // A fresh lanectl (no `config project`): the context namespace runai-lane-detection selects it.
  Cli fresh(server.url());
  r = fresh.run_shell("list" + flag);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.rfind("Showing jobs for project lane-detection\n", 0) == 0);
  r = fresh.run_shell("list --context other" + flag);
  CHECK(r.out.rfind("Showing jobs for project team-b\n", 0) == 0);
  // -p still wins.
  CHECK(fresh.run_shell("list -p team-b" + flag).out.rfind("Showing jobs for project team-b\n", 0) == 0);
}

TEST_CASE("kube verbs: suspend and resume set spec.suspend / spec.runPolicy.suspend", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 2").code == 0);
  REQUIRE(cli.run_shell("submit train1 -p p -i busybox -g 1").code == 0);
  REQUIRE(cli.run_shell("submit-mpi dist1 -p p -i busybox -g 1 --processes 2").code == 0);
  lane::kube::KubeClient client(server.connection());

  auto r = cli.run_shell("suspend train1 dist1 -p p");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out == "Job train1 suspended successfully.\nJob dist1 suspended successfully.\n");
  CHECK(client.get(res::kJob, "runai-p", "train1")["spec"]["suspend"] == true);
  CHECK(client.get(res::kMpiJob, "runai-p", "dist1")["spec"]["runPolicy"]["suspend"] == true);
  // Again: no patch, and it says so.
  const std::string version = client.get(res::kMpiJob, "runai-p", "dist1")["metadata"]["resourceVersion"];
  r = cli.run_shell("suspend dist1 -p p");
  CHECK(r.code == 0);
  CHECK(r.out == "Job dist1 is already suspended.\n");
  CHECK(client.get(res::kMpiJob, "runai-p", "dist1")["metadata"]["resourceVersion"] == version);

  // What the Job controller does next: the pods go, the Suspended condition appears.
  client.remove(res::kPod, "runai-p", job_pod(client, "train1")["metadata"]["name"].get<std::string>());
  Json job = client.get(res::kJob, "runai-p", "train1");
  job["status"] = {{"conditions", Json::array({{{"type", "Suspended"}, {"status", "True"}, {"reason", "JobSuspended"},
                                                {"message", "Job suspended"}}})}};
  server.control("/_test/object", job);
  r = cli.run_shell("list -p p");
  CHECK(has(r.out, "train1  Suspended"));

  r = cli.run_shell("resume train1 -p p");
  REQUIRE(r.code == 0);
  CHECK(client.get(res::kJob, "runai-p", "train1")["spec"]["suspend"] == false);
  r = cli.run_shell("resume train1 -p p");  // no longer suspended
  CHECK(r.code == 2);
  CHECK(has(r.out, "not suspended"));
  CHECK(cli.run_shell("suspend nosuch -p p").code == 1);
}

TEST_CASE("kube verbs: logs -f says when the job is deleted while followed", "[submit_kube][slow]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 2").code == 0);
  REQUIRE(cli.run_shell("submit chatty -p p -i busybox").code == 0);
  lane::kube::KubeClient client(server.connection());
  const std::string pod = job_pod(client, "chatty")["metadata"]["name"];
  server.control("/_test/logs", {{"namespace", "runai-p"}, {"pod", pod}, {"lines", {"first"}},
                                 {"follow", {"a", "b", "c", "d"}}, {"interval", 0.3}});
  lane::test::RunResult r{};
  std::thread follower([&] { r = cli.run_shell("logs -f chatty -p p"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Cli other(server.url());
  REQUIRE(other.run_shell("delete job chatty -p p").code == 0);
  follower.join();
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.rfind("first\n", 0) == 0);
  CHECK(has(r.out, "lanectl: error: job chatty was deleted"));
}

TEST_CASE("kube verbs: nodes, top node, whoami and list -o wide", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::TempDir dir;
  const std::string kc = write_kubeconfig(dir.path, server);
  Cli cli(server.url());
  const std::string flag = " --kubeconfig " + kc;
  // The node the test server places Job pods on, with 4 GPUs (3 allocatable).
  server.control("/_test/object",
                 {{"apiVersion", "v1"}, {"kind", "Node"},
                  {"metadata", {{"name", "aks-gpupool-34613062-vmss000000"}}},
                  {"status", {{"capacity", {{"nvidia.com/gpu", "4"}}}, {"allocatable", {{"nvidia.com/gpu", "3"}}},
                              {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})},
                              {"addresses", Json::array({{{"type", "InternalIP"}, {"address", "10.240.0.4"}}})}}}});
  REQUIRE(cli.run_shell("project create p --gpu-quota 2" + flag).code == 0);
  REQUIRE(cli.run_shell("submit gpu-job -p p -i busybox -g 1" + flag).code == 0);

  auto r = cli.run_shell("list nodes" + flag);
  INFO(r.out);
  CHECK(has(r.out, "aks-gpupool-34613062-vmss000000  3     1          p/gpu-job"));
  r = cli.run_shell("describe node aks-gpupool-34613062-vmss000000" + flag);
  CHECK(has(r.out, "READY:                   True\n"));
  CHECK(has(r.out, "ADDRESS:                 10.240.0.4\n"));
  CHECK(has(r.out, "GPU CAPACITY:            4\n"));
  CHECK(has(r.out, "GPU ALLOCATABLE:         3\n"));
  CHECK(has(r.out, "ALLOCATED GPUS:          1\n"));
  CHECK(has(r.out, "  p/gpu-job\n"));
  r = cli.run_shell("top node" + flag);
  CHECK(has(r.out, "aks-gpupool-34613062-vmss000000  Ready   3           1               2          -         -                 1\n"));

  r = cli.run_shell("whoami" + flag);
  CHECK(r.code == 0);
  CHECK(has(r.out, "Backend:         kubernetes\n"));
  CHECK(has(r.out, "Context:         aks\n"));
  CHECK(has(r.out, "Kubeconfig user: researcher\n"));
  CHECK(has(r.out, "Cluster:         " + server.url() + "\n"));
  CHECK(!has(r.out, "s3cret"));
  CHECK(!has(cli.run_shell("whoami -o yaml" + flag).out, "s3cret"));

  // -o wide: the chief pod's IP (status.podIP); describe: each pod's IP and start time.
  lane::kube::KubeClient client(server.connection());
  Json pod = job_pod(client, "gpu-job");
  pod["status"]["podIP"] = "10.244.3.9";
  pod["status"]["startTime"] = "2026-01-02T03:04:05Z";
  server.control("/_test/object", pod);
  r = cli.run_shell("list -p p -o wide" + flag);
  INFO(r.out);
  CHECK(has(r.out, "  10.244.3.9  20"));  // then the job's start time (the workload's status.startTime)
  CHECK(has(r.out, "Z  1     yes\n"));
  r = cli.run_shell("describe job gpu-job -p p -o wide" + flag);
  CHECK(has(r.out, "  10.244.3.9  2026-01-02T03:04:05Z\n"));
}

TEST_CASE("kube verbs: attach joins the chief pod over pods/attach and exits with the job's result", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 2").code == 0);
  REQUIRE(cli.run_shell("submit worker -p p -i busybox").code == 0);
  lane::kube::KubeClient client(server.connection());
  const std::string pod = job_pod(client, "worker")["metadata"]["name"];
  server.control("/_test/logs", {{"namespace", "runai-p"}, {"pod", pod}, {"lines", {"epoch 1"}},
                                 {"follow", {"epoch 2", "done"}}, {"interval", 0.2}});
  lane::test::RunResult r{};
  std::thread attacher([&] { r = cli.run_shell("attach worker -p p"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // The Job controller's verdict once the container has ended.
  Json job = client.get(res::kJob, "runai-p", "worker");
  job["status"] = {{"startTime", "2026-01-02T03:04:05Z"}, {"completionTime", "2026-01-02T03:05:05Z"},
                   {"conditions", Json::array({{{"type", "Complete"}, {"status", "True"}}})}};
  server.control("/_test/object", job);
  attacher.join();
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "epoch 2\ndone\n");  // what the container writes from the attach on (not its history)
  bool attached = false;
  for (const auto& req : server.requests())
    attached = attached || req.value("path", "") == "/api/v1/namespaces/runai-p/pods/" + pod + "/attach";
  CHECK(attached);

  // A failed job: exit 1.
  REQUIRE(cli.run_shell("submit failer -p p -i busybox").code == 0);
  job = client.get(res::kJob, "runai-p", "failer");
  job["status"] = {{"conditions", Json::array({{{"type", "Failed"}, {"status", "True"}, {"reason", "BackoffLimitExceeded"}}})}};
  server.control("/_test/object", job);
  r = cli.run_shell("attach failer -p p");
  CHECK(r.code == 1);
  CHECK(cli.run_shell("attach nosuch -p p").code == 1);
}

TEST_CASE("kube: submit --attach creates an interactive-ready pod and joins it over pods/attach", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create p --gpu-quota 2").code == 0);
  lane::kube::KubeClient client(server.connection());
  lane::test::RunResult r{};
  std::thread submitter([&] { r = cli.run_shell("submit live -p p -i busybox --attach"); });
  // Wait for the Job's pod, then play the container's output and the Job controller's verdict.
  std::string pod;
  for (int i = 0; i < 100 && pod.empty(); ++i) {
    if (client.try_get(res::kJob, "runai-p", "live")) {
      auto pods = client.list(res::kPod, "runai-p").items;
      for (const auto& p : pods)
        if (p["metadata"]["name"].get<std::string>().rfind("live-", 0) == 0) pod = p["metadata"]["name"];
    }
    if (pod.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE_FALSE(pod.empty());
  server.control("/_test/logs", {{"namespace", "runai-p"}, {"pod", pod}, {"lines", {"old"}},
                                 {"follow", {"live 1", "live 2"}}, {"interval", 0.2}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Json job = client.get(res::kJob, "runai-p", "live");
  job["status"] = {{"conditions", Json::array({{{"type", "Failed"}, {"status", "True"}, {"reason", "BackoffLimitExceeded"}}})}};
  server.control("/_test/object", job);
  submitter.join();
  INFO(r.out);
  CHECK(r.code == 1);  // the job's result
  CHECK(r.out.find("The job 'live' has been submitted successfully") == 0);
  // The container asked for a terminal and stdin, as runai's --attach does.
  auto container = client.get(res::kJob, "runai-p", "live")["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["tty"] == true);
  CHECK(container["stdin"] == true);
  bool attached = false;
  for (const auto& req : server.requests())
    attached = attached || req.value("path", "") == "/api/v1/namespaces/runai-p/pods/" + pod + "/attach";
  CHECK(attached);
}
