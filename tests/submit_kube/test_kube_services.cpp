// --service-type on Kubernetes: the Ingress next to the ClusterIP Service, deleted with the job,
// and SERVICE URL(S) of list/describe from the objects' status (the test API server is told the
// status a controller or cloud provider would write, as for Job and pod status elsewhere).
#include <catch2/catch.hpp>

#include "fake_server.h"
#include "kube_backend_fixture.h"
#include "support/lanectl_runner.h"
#include "submit/kube/kube_backend.h"
#include "submit/kube/mapping.h"
#include "submit/kube/service_urls.h"

using namespace lane::submit;
using namespace lane::submit::kube;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

namespace {

constexpr const char* kNs = "runai-lane-detection";
// The node the test API server puts a Job's pod on.
constexpr const char* kJobNode = "aks-gpupool-34613062-vmss000000";

struct ServiceFixture : lane::test::KubeBackendFixture {
  explicit ServiceFixture(lane::kube::RetryPolicy retry = {}) : KubeBackendFixture(retry) {}
  // What the cloud's load balancer / ingress controller writes once it has an address.
  void set_balancer_status(const lane::kube::Resource& r, const std::string& name, const Json& ingress) {
    Json obj = client->get(r, kNs, name);
    obj["status"] = {{"loadBalancer", {{"ingress", ingress}}}};
    server.control("/_test/object", obj);
  }
  void add_node(const std::string& name, const Json& addresses) {
    server.control("/_test/object", {{"apiVersion", "v1"},
                                     {"kind", "Node"},
                                     {"metadata", {{"name", name}}},
                                     {"status", {{"addresses", addresses}}}});
  }
};

JobSpec notebook(const std::string& type, std::vector<std::string> ports) {
  JobSpec s;
  s.name = "notebook";
  s.project = "lane-detection";
  s.type = JobType::kInteractive;
  s.image = "jupyter/scipy-notebook";
  for (const auto& p : ports) s.ports.push_back(parse_port(p));
  s.service_type = type;
  return s;
}

std::vector<std::string> urls_of(KubeBackend& b) {
  auto listed = b.jobs().list_jobs(std::string("lane-detection"));
  REQUIRE(listed.size() == 1);
  auto described = b.jobs().describe_job("notebook", "lane-detection");
  REQUIRE(described);
  CHECK(described->service_urls == listed[0].service_urls);  // list and describe agree
  return listed[0].service_urls;
}

}  // namespace

TEST_CASE("kube services: --service-type ingress renders an Ingress to the ClusterIP Service", "[submit_kube][fast]") {
  KubeSettings s;
  auto objects = render_job(s, notebook("ingress", {"8888", "9090:6006"}));
  REQUIRE(objects.size() == 3);
  CHECK(objects[1]["kind"] == "Service");
  CHECK(objects[1]["spec"]["type"] == "ClusterIP");
  const Json& ing = objects[2];
  CHECK(ing["apiVersion"] == "networking.k8s.io/v1");
  CHECK(ing["kind"] == "Ingress");
  CHECK(ing["metadata"]["name"] == "notebook");
  CHECK(ing["metadata"]["namespace"] == kNs);
  const Json& paths = ing["spec"]["rules"][0]["http"]["paths"];
  REQUIRE(paths.size() == 2);
  CHECK(paths[0]["path"] == "/lane-detection-notebook");
  CHECK(paths[0]["pathType"] == "Prefix");
  CHECK(paths[0]["backend"]["service"] == Json{{"name", "notebook"}, {"port", {{"number", 8888}}}});
  CHECK(paths[1]["path"] == "/lane-detection-notebook-6006");
  CHECK(paths[1]["backend"]["service"]["port"]["number"] == 9090);
  for (const char* other : {"portforward", "nodeport", "loadbalancer"})
    for (const auto& o : render_job(s, notebook(other, {"8888"}))) CHECK(o["kind"] != "Ingress");
}

TEST_CASE("kube services: the Ingress is created, its URL comes from its status, and it goes with the job", "[submit_kube][fast]") {
  ServiceFixture f;
  f.backend.jobs().submit(notebook("ingress", {"8888"}));
  auto ing = f.client->get(res::kIngress, kNs, "notebook");  // the test API server accepted it
  CHECK(ing["spec"]["rules"][0]["http"]["paths"][0]["path"] == "/lane-detection-notebook");
  CHECK(f.client->get(res::kService, kNs, "notebook")["spec"]["type"] == "ClusterIP");
  CHECK(urls_of(f.backend).empty());  // no address yet
  f.set_balancer_status(res::kIngress, "notebook", Json::array({{{"ip", "20.1.2.3"}}}));
  CHECK(urls_of(f.backend) == std::vector<std::string>{"20.1.2.3/lane-detection-notebook"});
  CHECK(f.backend.jobs().delete_job("notebook", "lane-detection"));
  CHECK_FALSE(f.client->try_get(res::kIngress, kNs, "notebook"));
  CHECK_FALSE(f.client->try_get(res::kService, kNs, "notebook"));
}

TEST_CASE("kube services: a node port's URL is the address of the job's node", "[submit_kube][fast]") {
  ServiceFixture f;
  f.backend.jobs().submit(notebook("nodeport", {"30888:8888", "6006"}));
  CHECK(urls_of(f.backend).empty());  // the node's address is not known yet
  f.add_node(kJobNode, Json::array({{{"type", "Hostname"}, {"address", kJobNode}},
                                    {{"type", "InternalIP"}, {"address", "10.240.0.4"}}}));
  f.add_node("other-node", Json::array({{{"type", "InternalIP"}, {"address", "10.240.0.9"}}}));
  const int picked = f.client->get(res::kService, kNs, "notebook")["spec"]["ports"][1]["nodePort"].get<int>();
  CHECK(picked >= 30000);  // the server allocated the second port's node port
  CHECK(urls_of(f.backend) ==
        std::vector<std::string>{"10.240.0.4:30888", "10.240.0.4:" + std::to_string(picked)});
}

TEST_CASE("kube services: a load balancer's URL comes from the Service status", "[submit_kube][fast]") {
  ServiceFixture f;
  f.backend.jobs().submit(notebook("loadbalancer", {"8080:8888"}));
  CHECK(urls_of(f.backend).empty());
  f.set_balancer_status(res::kService, "notebook", Json::array({{{"ip", "52.1.1.1"}}, {{"hostname", "nb.example.com"}}}));
  CHECK(urls_of(f.backend) == std::vector<std::string>{"52.1.1.1:8080", "nb.example.com:8080"});
}

TEST_CASE("kube services: portforward has no URL the cluster knows", "[submit_kube][fast]") {
  ServiceFixture f;
  f.backend.jobs().submit(notebook("portforward", {"8888"}));
  f.set_balancer_status(res::kService, "notebook", Json::array({{{"ip", "52.1.1.1"}}}));  // ignored on ClusterIP
  CHECK(urls_of(f.backend).empty());
}

TEST_CASE("service_urls and node_address read only what the status says", "[submit_kube][fast]") {
  Json node{{"status", {{"addresses", Json::array({{{"type", "InternalIP"}, {"address", "10.0.0.1"}},
                                                   {{"type", "ExternalIP"}, {"address", "1.2.3.4"}}})}}}};
  CHECK(node_address(node) == "1.2.3.4");  // ExternalIP first
  CHECK(node_address(Json::object()).empty());
  Json svc{{"spec", {{"type", "NodePort"}, {"ports", Json::array({{{"port", 80}, {"nodePort", 30080}}})}}}};
  CHECK(service_urls(svc, nullptr, "").empty());
  CHECK(service_urls(svc, nullptr, "1.2.3.4") == std::vector<std::string>{"1.2.3.4:30080"});
  Json ing{{"spec", {{"rules", Json::array({{{"host", "nb.example.com"},
                                              {"http", {{"paths", Json::array({{{"path", "/p-j"}}})}}}}})}}},
           {"status", {{"loadBalancer", {{"ingress", Json::array({{{"ip", "20.0.0.1"}}})}}}}}};
  svc["spec"]["type"] = "ClusterIP";
  CHECK(service_urls(svc, &ing, "") == std::vector<std::string>{"nb.example.com/p-j"});  // the rule's host wins
  ing["status"] = Json::object();
  CHECK(service_urls(svc, &ing, "").empty());
}

TEST_CASE("kube cli: list -o wide and describe print SERVICE URL(S)", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli(server.url());
  REQUIRE(cli.run_shell("project create lane-detection --gpu-quota 3").code == 0);
  auto r = cli.run_shell("submit --name notebook -p lane-detection -i jupyter/scipy-notebook --port 8080:8888 "
                   "--service-type loadbalancer");
  INFO(r.out);
  REQUIRE(r.code == 0);
  lane::kube::KubeClient client(server.connection());
  Json svc = client.get(res::kService, kNs, "notebook");
  svc["status"] = {{"loadBalancer", {{"ingress", Json::array({{{"ip", "52.1.1.1"}}})}}}};
  server.control("/_test/object", svc);
  r = cli.run_shell("list -p lane-detection -o wide");  // the default table keeps within 120 columns
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("SERVICE URL(S)") != std::string::npos);
  CHECK(r.out.find("52.1.1.1:8080") != std::string::npos);
  r = cli.run_shell("describe job notebook -p lane-detection");
  INFO(r.out);
  CHECK(r.out.find("SERVICE URL(S):") != std::string::npos);
  CHECK(r.out.find("52.1.1.1:8080") != std::string::npos);
}

TEST_CASE("kube services: a submit whose Service fails leaves no job behind, and the name can be used again",
          "[submit_kube][fast]") {
  ServiceFixture f;
  f.backend.jobs().submit(notebook("nodeport", {"30888:8888"}));
  JobSpec second = notebook("nodeport", {"30888:8888"});  // the node port is taken: the Service is refused
  second.name = "notebook-2";
  CHECK_THROWS_WITH(f.backend.jobs().submit(second), Catch::Contains("30888"));
  CHECK_FALSE(f.client->try_get(res::kJob, kNs, "notebook-2"));  // the Job created before it is gone again
  CHECK_FALSE(f.client->try_get(res::kService, kNs, "notebook-2"));
  CHECK_FALSE(f.backend.jobs().describe_job("notebook-2", "lane-detection"));
  second.ports = {parse_port("30889:8888")};
  f.backend.jobs().submit(second);  // the same name again, with a free node port
  CHECK(f.client->get(res::kService, kNs, "notebook-2")["spec"]["ports"][0]["nodePort"] == 30889);
  CHECK(f.client->try_get(res::kJob, kNs, "notebook")); // the first job is untouched
}

TEST_CASE("kube services: a submit whose Service create got no answer removes the Service the API server made",
          "[submit_kube][fast]") {
  lane::kube::RetryPolicy quick;
  quick.base_delay = std::chrono::milliseconds(5);
  quick.max_delay = std::chrono::milliseconds(20);
  ServiceFixture f(quick);
  // The server makes the Service, then the connection drops before its answer; reading it back
  // fails on every attempt too (the API server in trouble for a moment).
  f.server.fault({{"method", "POST"}, {"path", "/services"}, {"action", "drop_after"}, {"count", 1}});
  f.server.fault({{"method", "GET"}, {"path", "/services/notebook"}, {"action", "500"}, {"count", quick.max_attempts}});
  CHECK_THROWS(f.backend.jobs().submit(notebook("nodeport", {"30888:8888"})));
  CHECK_FALSE(f.client->try_get(res::kService, kNs, "notebook"));  // made by the unanswered POST, removed
  CHECK_FALSE(f.client->try_get(res::kJob, kNs, "notebook"));
  // The same name again works: nothing of the failed submit is left.
  f.backend.jobs().submit(notebook("nodeport", {"30888:8888"}));
  CHECK(f.client->get(res::kService, kNs, "notebook")["spec"]["ports"][0]["nodePort"] == 30888);
}
