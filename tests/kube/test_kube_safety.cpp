// Issue 15 on Kubernetes: secret -e values never reach annotations or output (the pods still get
// them), `snapshot create -p other` works in that project's namespace, and transport mistakes
// fail at once with a clear message: a bad server URL or port, a 1 MB token; back-to-back
// 410 Gone answers to a watch relist with a jittered pause instead of spinning.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

#include "common/error.h"
#include "fake_server.h"
#include "support/lanectl_runner.h"
#include "kube/api_error.h"
#include "kube/kube_client.h"
#include "kube/kubeconfig.h"

using Json = nlohmann::json;
using lane::test::count_requests;
namespace res = lane::kube::resources;
namespace fs = std::filesystem;

namespace {

const char* kSecrets[] = {"s3cr3t-api-token", "az-client-s3cr3t", "db-pa55word"};

void check_no_secret(const std::string& text, const std::string& where) {
  INFO(where << ":\n" << text.substr(0, 4000));
  for (const char* s : kSecrets) CHECK(text.find(s) == std::string::npos);
}

}  // namespace

TEST_CASE("kube safety: secret -e values are masked in annotations and output, the pod gets them", "[kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli(server.url());
  REQUIRE(cli.run_shell("project create team --gpu-quota 2").code == 0);
  const std::string submit =
      "submit --name secretive -p team --image busybox -e API_TOKEN=s3cr3t-api-token "
      "-e AZURE_CLIENT_SECRET=az-client-s3cr3t --environment=DB_PASSWORD=db-pa55word -e PLAIN=visible-value "
      "-e HF_TOKEN=SECRET:hf,token";
  const std::string command = " --command -- sh -c 'echo $API_TOKEN'";
  auto dry = cli.run_shell(submit + " --dry-run -o yaml" + command);
  INFO(dry.out);
  REQUIRE(dry.code == 0);
  check_no_secret(dry.out, "--dry-run -o yaml");
  CHECK(dry.out.find("****") != std::string::npos);
  CHECK(dry.out.find("visible-value") != std::string::npos);
  CHECK(dry.out.find("SECRET:<secret-name>,<key>") != std::string::npos);  // the advice (stderr)

  auto r = cli.run_shell(submit + command);
  INFO(r.out);
  REQUIRE(r.code == 0);
  lane::kube::KubeClient client(server.connection());
  Json job = client.get(res::kJob, "runai-team", "secretive");
  const Json& annotations = job["metadata"]["annotations"];
  check_no_secret(annotations.dump(), "annotations");
  CHECK(annotations["runai-cli-command"].get<std::string>().find("API_TOKEN=****") != std::string::npos);
  CHECK(annotations["lanectl.io/spec"].get<std::string>().find("****") != std::string::npos);
  // The container still receives the real values; SECRET:name,key becomes a secretKeyRef.
  std::map<std::string, Json> env;
  for (const auto& e : job["spec"]["template"]["spec"]["containers"][0]["env"]) env[e["name"]] = e;
  CHECK(env["API_TOKEN"]["value"] == "s3cr3t-api-token");
  CHECK(env["DB_PASSWORD"]["value"] == "db-pa55word");
  CHECK(env["HF_TOKEN"]["valueFrom"]["secretKeyRef"] == Json{{"name", "hf"}, {"key", "token"}});

  for (const char* out : {"", " -o json", " -o yaml"}) {
    auto d = cli.run_shell(std::string("describe job secretive -p team") + out);
    REQUIRE(d.code == 0);
    check_no_secret(d.out, std::string("describe") + out);
  }
}

TEST_CASE("kube safety: snapshot create --pvc X -p other uses the namespace of project other", "[kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli(server.url());
  REQUIRE(cli.run_shell("project create home --gpu-quota 1").code == 0);
  REQUIRE(cli.run_shell("project create other --gpu-quota 1").code == 0);
  REQUIRE(cli.run_shell("config project home").code == 0);
  lane::kube::KubeClient client(server.connection());
  client.create(res::kPvc, "runai-other",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolumeClaim"},
                 {"metadata", {{"name", "pvc-data"}}},
                 {"spec", {{"accessModes", {"ReadWriteMany"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  auto r = cli.run_shell("snapshot create --pvc pvc-data -p other --name snap-other");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("runai-other") != std::string::npos);
  CHECK(client.try_get(res::kVolumeSnapshot, "runai-other", "snap-other"));
  CHECK_FALSE(client.try_get(res::kVolumeSnapshot, "runai-home", "snap-other"));
  auto list = cli.run_shell("snapshot list -p other");
  CHECK(list.out.find("snap-other") != std::string::npos);
}

TEST_CASE("kube safety: unsupported schemes and invalid ports fail at once, naming the problem", "[kube][fast]") {
  using lane::kube::server_url_problem;
  CHECK_FALSE(server_url_problem("https://aks.example:443"));
  CHECK_FALSE(server_url_problem("http://127.0.0.1:8080/prefix"));
  CHECK_FALSE(server_url_problem("https://[::1]:6443"));
  CHECK(server_url_problem("ftp://aks.example")->find("scheme 'ftp'") != std::string::npos);
  CHECK(server_url_problem("https://aks.example:99999")->find("invalid port") != std::string::npos);
  CHECK(server_url_problem("https://aks.example:0")->find("invalid port") != std::string::npos);
  CHECK(server_url_problem("https://aks.example:http")->find("invalid port") != std::string::npos);
  CHECK(server_url_problem("aks.example")->find("no scheme") != std::string::npos);

  lane::test::TempDir dir;
  for (const std::string server : {"gopher://127.0.0.1:1", "https://127.0.0.1:70000"}) {
    INFO(server);
    std::ofstream(dir.path / "config") << "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                                          "  cluster: {server: '" << server << "'}\nusers:\n- name: u\n  user: {token: t}\n"
                                          "contexts:\n- name: c\n  context: {cluster: k, user: u}\n";
    lane::kube::KubeconfigOptions o;
    o.kubeconfig_env = (dir.path / "config").string();
    CHECK_THROWS_WITH(lane::kube::load_kubeconfig(o), Catch::Contains(server) && Catch::Contains("https://HOST[:PORT]"));
    // A connection built without the kubeconfig check is not retried for seconds either.
    lane::kube::Connection c;
    c.server = server;
    lane::kube::KubeClient client(c);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS(client.request("GET", "/api/v1/namespaces"));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(500));
  }
}

TEST_CASE("kube safety: a password in the server URL never reaches an error message", "[kube][fast]") {
  lane::test::TempDir dir;
  std::ofstream(dir.path / "config") << "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                                        "  cluster: {server: 'gopher://admin:pa55word@127.0.0.1:1'}\nusers:\n"
                                        "- name: u\n  user: {token: t}\ncontexts:\n- name: c\n"
                                        "  context: {cluster: k, user: u}\n";
  lane::kube::KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  CHECK_THROWS_WITH(lane::kube::load_kubeconfig(o),
                    Catch::Contains("'gopher://***@127.0.0.1:1'") && !Catch::Contains("pa55word"));
  // A server that refuses the connection (port 1): "cannot reach https://***@127.0.0.1:1".
  lane::kube::Connection c;
  c.server = "https://admin:pa55word@127.0.0.1:1";
  lane::net::RetryPolicy once;
  once.max_attempts = 1;
  lane::kube::KubeClient client(c, once);
  CHECK_THROWS_WITH(client.request("GET", "/api/v1/namespaces"),
                    Catch::Contains("cannot reach https://***@127.0.0.1:1") && !Catch::Contains("pa55word"));
}

TEST_CASE("kube safety: a 1 MB kubeconfig token is reported as too large, not as out of memory", "[kube][fast]") {
  lane::test::FakeApiServer server;
  lane::kube::Connection c = server.connection();
  c.token = std::string(1 << 20, 'a');
  lane::kube::KubeClient client(c);
  try {
    client.request("GET", "/api/v1/namespaces");
    FAIL("a 1 MB token was sent");
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    CHECK(msg.find("1048576 bytes") != std::string::npos);
    CHECK(msg.find("token") != std::string::npos);
    CHECK(msg.find("Out of memory") == std::string::npos);
    CHECK(msg.find("aaaaaaaa") == std::string::npos);  // never the token itself
  }
}

TEST_CASE("kube safety: back-to-back 410 Gone on watch relists with a jittered backoff", "[kube][slow]") {
  lane::test::FakeApiServer server;
  lane::kube::RetryPolicy retry;
  retry.base_delay = std::chrono::milliseconds(100);
  retry.max_delay = std::chrono::milliseconds(400);
  lane::kube::KubeClient client(server.connection(), retry);
  client.create(res::kNamespace, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}});
  client.create(res::kConfigMap, "team",
                {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "flag"}}}, {"data", {{"k", "no"}}}});
  server.fault({{"method", "GET"}, {"path", "watch=1"}, {"action", "gone"}, {"count", 100000}});
  auto found = client.wait_for(res::kConfigMap, "team", "flag", [](const Json&) { return false; },
                               std::chrono::seconds(2));
  CHECK_FALSE(found);
  // Without a pause this loop relists hundreds of times in 2 s; with 50-100, 100-200, then
  // 200-400 ms pauses it is about ten list + watch pairs.
  const int gets = count_requests(server.requests(), "GET", "/configmaps");
  CHECK(gets >= 6);
  CHECK(gets <= 30);
}
