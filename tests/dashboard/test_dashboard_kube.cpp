// The dashboard's Nodes/GPUs, Projects and Snapshots API over the Kubernetes backend, against
// the test API server (tests/kube/fake_apiserver.py): what the pods' GPU requests and the node's
// allocatable tell (no device indices), and the lineage of a CSI snapshot and its restore.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "dashboard/api.h"
#include "kube_backend_fixture.h"

using Json = nlohmann::json;
using namespace lane::submit;

namespace {

JobSpec sleeper(const std::string& name, double gpu) {
  JobSpec s;
  s.name = name;
  s.project = "lane-detection";
  s.image = "busybox";
  s.gpu = gpu;
  s.pvcs.push_back({true, "", "", "1Gi", "/data", false, false});
  s.user = "researcher";
  return s;
}

Json get(lane::dashboard::Api& api, const std::string& path) {
  auto r = api.get(path, {});
  INFO(path << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == 200);
  return Json::parse(r.body);
}

}  // namespace

TEST_CASE("dashboard on Kubernetes: per-node GPU shares from the pods' requests, projects, lineage", "[dashboard][fast]") {
  lane::test::KubeBackendFixture f;
  f.server.control("/_test/object",
                   {{"apiVersion", "v1"}, {"kind", "Node"},
                    {"metadata", {{"name", "aks-gpupool-34613062-vmss000000"}}},
                    {"status", {{"capacity", {{"nvidia.com/gpu", "4"}}}, {"allocatable", {{"nvidia.com/gpu", "3"}}},
                                {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
  f.backend.jobs().submit(sleeper("frac", 0.5));
  f.backend.jobs().submit(sleeper("whole", 1));
  lane::dashboard::Api api({f.backend.jobs(), f.backend.projects(), f.backend.cluster(), f.backend.job_files(),
                          f.backend.storage()});

  Json gpus = get(api, "/api/gpus");
  REQUIRE(gpus.size() == 1);
  const Json& n = gpus[0];
  CHECK(n["name"] == "aks-gpupool-34613062-vmss000000");
  CHECK(n["gpus"] == 3);
  CHECK(n["gpuCapacity"] == 4);
  CHECK(n["ready"] == "True");
  CHECK(n["gpusAllocated"].get<double>() == Approx(1.5));
  CHECK(n["devicesKnown"] == false);  // the device plugin's choice is not in the API
  REQUIRE(n["devices"].size() == 3);
  for (const auto& d : n["devices"]) CHECK(d["shares"].empty());
  REQUIRE(n["unassigned"].size() == 2);
  std::map<std::string, Json> by_job;
  for (const auto& u : n["unassigned"]) by_job[u["job"].get<std::string>()] = u;
  REQUIRE(by_job.count("lane-detection/frac"));
  CHECK(by_job["lane-detection/frac"]["gpus"].get<double>() == Approx(0.5));
  CHECK(by_job["lane-detection/frac"]["sharePerGpu"].get<double>() == Approx(0.5));
  REQUIRE(by_job.count("lane-detection/whole"));
  CHECK(by_job["lane-detection/whole"]["gpus"].get<double>() == Approx(1));

  Json metrics = get(api, "/api/gpus/metrics");
  CHECK(metrics["available"] == false);

  Json projects = get(api, "/api/projects");
  REQUIRE(projects.size() >= 1);
  bool seen = false;
  for (const auto& p : projects)
    if (p["name"] == "lane-detection") {
      seen = true;
      CHECK(p["gpuQuota"] == 3);
      CHECK(p["gpusAllocated"].get<double>() == Approx(1.5));
    }
  CHECK(seen);

  // A CSI snapshot of the job's claim, restored into a new claim.
  auto& storage = f.backend.storage();
  storage.snapshots().create("pvc-frac-0", "frac-snap", "frac", {});
  storage.snapshots().restore_to_new_volume("frac-snap", "frac-restored");
  Json snaps = get(api, "/api/snapshots");
  REQUIRE(snaps["items"].size() == 1);
  CHECK(snaps["items"][0]["name"] == "frac-snap");
  Json graph = get(api, "/api/lineage");
  std::set<std::tuple<std::string, std::string, std::string>> edges;
  for (const auto& e : graph["edges"])
    edges.insert({e["from"].get<std::string>(), e["to"].get<std::string>(), e["kind"].get<std::string>()});
  INFO(graph.dump());
  CHECK(edges.count({"snapshot:frac-snap", "volume:frac-restored", "restored"}));
  bool job_edge = false;
  for (const auto& [from, to, kind] : edges) job_edge = job_edge || (to == "snapshot:frac-snap" && kind == "snapshot");
  CHECK(job_edge);
}
