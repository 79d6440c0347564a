// The Run:AI v2 submit flags on the Kubernetes backend: `lanectl training submit` (and `training mpi
// submit`, `workspace submit`) against the test API server, which enforces the official schemas;
// the objects they create are read back and checked field by field.
#include <catch2/catch.hpp>

#include "fake_server.h"
#include "kube/kube_client.h"
#include "support/lanectl_runner.h"

namespace res = lane::kube::resources;
using Json = nlohmann::json;

namespace {

constexpr const char* kNs = "runai-team";

struct Cluster {
  lane::test::FakeApiServer server;
  lane::test::Lanectl cli{server.url()};
  lane::kube::KubeClient client{server.connection()};

  Cluster() {
    REQUIRE(cli.run_shell("project create team --gpu-quota 4").code == 0);
    REQUIRE(cli.run_shell("config project team").code == 0);
  }
  void submit(const std::string& line) {
    auto r = cli.run_shell(line);
    INFO(line << "\n" << r.out);
    REQUIRE(r.code == 0);
  }
  Json pod_spec(const std::string& job) { return client.get(res::kJob, kNs, job)["spec"]["template"]["spec"]; }
};

}  // namespace

TEST_CASE("v2 flags on Kubernetes: resources, claims, host paths, node pool, TTL", "[cli][fast]") {
  Cluster c;
  c.submit("training submit t1 -i busybox --gpu-devices-request 1 --cpu-core-request 500m --cpu-memory-request 1Gi "
           "--cpu-core-limit 1 --cpu-memory-limit 2Gi --new-pvc claimname=scratch,storageclass=fast,size=2Gi,path=/s "
           "--new-pvc size=1Gi,path=/t,ro "
           "--host-path path=/srv,mount=/in --node-pools a100 --auto-deletion-time-after-completion 1h -c -- true");
  const Json pvc = c.client.get(res::kPvc, kNs, "scratch");
  CHECK(pvc["spec"]["storageClassName"] == "fast");
  CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "2Gi");
  CHECK(c.client.get(res::kPvc, kNs, "pvc-t1-1")["spec"]["resources"]["requests"]["storage"] == "1Gi");

  const Json job = c.client.get(res::kJob, kNs, "t1");
  CHECK(job["spec"]["ttlSecondsAfterFinished"] == 3600);
  const Json pod = job["spec"]["template"]["spec"];
  CHECK(pod["nodeSelector"]["kai.scheduler/node-pool"] == "a100");
  const Json& container = pod["containers"][0];
  CHECK(container["command"] == Json::array({"true"}));
  CHECK(container["resources"]["requests"]["cpu"] == "500m");
  CHECK(container["resources"]["requests"]["memory"] == "1Gi");
  CHECK(container["resources"]["limits"]["cpu"] == "1");
  CHECK(container["resources"]["limits"]["memory"] == "2Gi");
  CHECK(container["resources"]["limits"]["nvidia.com/gpu"] == "1");
  std::map<std::string, Json> volumes;
  for (const auto& v : pod["volumes"]) volumes[v["name"].get<std::string>()] = v;
  CHECK(volumes.at("pvc-volume-0")["persistentVolumeClaim"]["claimName"] == "scratch");
  CHECK(volumes.at("pvc-volume-1")["persistentVolumeClaim"]["claimName"] == "pvc-t1-1");
  bool host_path = false;
  for (const auto& v : pod["volumes"])
    host_path = host_path || (v.contains("hostPath") && v["hostPath"]["path"] == "/srv");
  CHECK(host_path);
  bool read_only_in = false;
  for (const auto& m : container["volumeMounts"])
    read_only_in = read_only_in || (m["mountPath"] == "/in" && m.value("readOnly", false));
  CHECK(read_only_in);  // v2 host paths are read-only unless readwrite

  // Another job mounts the named claim.
  c.submit("training submit t2 -i busybox --existing-pvc claimname=scratch,path=/again,ro -c -- true");
  const Json claim = c.pod_spec("t2")["volumes"][0]["persistentVolumeClaim"];
  CHECK(claim["claimName"] == "scratch");
  CHECK(claim["readOnly"] == true);
  // A claim that is not there: refused before anything is created, naming the flag.
  auto r = c.cli.run_shell("training submit t3 -i busybox --existing-pvc claimname=scrach,path=/s -c -- true");
  CHECK(r.code == 2);
  CHECK(r.out.find("--existing-pvc claimname=scrach: claim 'scrach' does not exist in runai-team") != std::string::npos);
  CHECK(!c.client.try_get(res::kJob, kNs, "t3"));
}

TEST_CASE("v2 flags on Kubernetes: --port service-type and --external-url make the Service and Ingress", "[cli][fast]") {
  Cluster c;
  c.submit("workspace submit nb -i busybox --gpu-portion-request 0.5 --port container=8888,external=30088,"
           "service-type=NodePort -c -- sleep 60");
  const Json svc = c.client.get(res::kService, kNs, "nb");
  CHECK(svc["spec"]["type"] == "NodePort");
  CHECK(svc["spec"]["ports"][0]["targetPort"] == 8888);
  const Json resources = c.pod_spec("nb")["containers"][0].value("resources", Json::object());
  CHECK_FALSE(resources.value("limits", Json::object()).contains("nvidia.com/gpu"));  // a fraction: no whole GPU
  CHECK(c.client.get(res::kJob, kNs, "nb")["spec"]["template"]["metadata"]["annotations"]["gpu-fraction"] == "0.5");

  c.submit("training submit web -i busybox --external-url container=8080 -c -- sleep 60");
  CHECK(c.client.get(res::kService, kNs, "web")["spec"].value("type", "ClusterIP") == "ClusterIP");
  const Json ingress = c.client.get(res::kIngress, kNs, "web");
  CHECK(ingress["spec"]["rules"][0]["http"]["paths"][0]["path"] == "/team-web");

  c.submit("training mpi submit dist -i busybox --workers 3 --gpu-devices-request 1 -c -- hostname");
  const Json mpi = c.client.get(res::kMpiJob, kNs, "dist");
  CHECK(mpi["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 3);
}

TEST_CASE("nodepool list on Kubernetes groups the Nodes by their kai.scheduler/node-pool label", "[cli][fast]") {
  Cluster c;
  auto node = [&](const std::string& name, const Json& labels, int gpus) {
    c.server.control("/_test/object", {{"apiVersion", "v1"},
                                       {"kind", "Node"},
                                       {"metadata", {{"name", name}, {"labels", labels}}},
                                       {"status", {{"allocatable", {{"nvidia.com/gpu", std::to_string(gpus)}}},
                                                   {"capacity", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}});
  };
  node("gpu-a", {{"kai.scheduler/node-pool", "a100"}}, 8);
  node("gpu-b", {{"kai.scheduler/node-pool", "a100"}}, 8);
  node("cpu-a", Json::object(), 0);
  auto r = c.cli.run({"nodepool", "list"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("NODEPOOL  NODES  GPUS  ALLOCATED\n", 0) == 0);
  CHECK(r.out.find("\na100      2      16    0\n") != std::string::npos);
  CHECK(r.out.find("\ndefault   ") != std::string::npos);
  CHECK(r.err.empty());  // the local note is the local backend's only
}
