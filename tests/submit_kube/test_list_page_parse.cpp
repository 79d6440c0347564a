// parse_workload_page / parse_pod_page: list pages straight into the summaries `lanectl list`
// reads. Each case checks the fields directly and against summarize_* of the parsed tree
// (what describe uses), so both ways of reading an object stay the same.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "common/error.h"
#include "fake_server.h"
#include "submit/kube/list_page_parse.h"

using namespace lane::submit::kube;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

namespace {

Json to_json(const PodTemplateSummary& t) {
  return {{"has_spec", t.has_spec},
          {"has_container", t.has_container},
          {"first_image", t.first_image},
          {"first_gpu", t.first_gpu ? Json{t.first_gpu->is_text, t.first_gpu->text, t.first_gpu->number} : Json()},
          {"fraction", t.fraction ? Json(*t.fraction) : Json()}};
}

// Lookups are by key: the order of labels/annotations does not matter (a tree keeps them sorted).
Json sorted(StringPairs pairs) {
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

Json to_json(const WorkloadSummary& w) {
  Json conds = Json::array();
  for (const auto& c : w.conditions) conds.push_back({c.type, c.status, c.reason, c.message});
  return {{"kind", w.kind},
          {"name", w.name},
          {"ns", w.ns},
          {"created", w.created},
          {"labels", sorted(w.labels)},
          {"annotations", sorted(w.annotations)},
          {"owned_by_mpijob", w.owned_by_mpijob},
          {"worker_replicas", w.worker_replicas},
          {"slots_per_worker", w.slots_per_worker},
          {"job_template", to_json(w.job_template)},
          {"worker_template", to_json(w.worker_template)},
          {"start_time", w.start_time},
          {"completion_time", w.completion_time},
          {"conditions", conds}};
}

Json to_json(const PodSummary& p) {
  Json gpus = Json::array();
  for (const auto& g : p.gpus) gpus.push_back({g.is_text, g.text, g.number});
  return {{"name", p.name},   {"ns", p.ns},     {"created", p.created}, {"mpi_job_name", p.mpi_job_name},
          {"job_name", p.job_name}, {"role", p.role}, {"phase", p.phase}, {"node", p.node},
          {"ip", p.ip},       {"start_time", p.start_time},
          {"gpus", gpus},     {"fraction", p.fraction ? Json(*p.fraction) : Json()}};
}

// The summaries from the page's tree, as describe would make them (list items get the
// listed kind first, as KubeClient::list stamps it).
std::vector<Json> tree_workloads(const std::string& page, const std::string& kind) {
  std::vector<Json> out;
  const Json doc = Json::parse(page);
  for (auto item : doc["items"]) {
    if (!item.contains("kind") || !item["kind"].is_string() || item["kind"] == "") item["kind"] = kind;
    out.push_back(to_json(summarize_workload(item)));
  }
  return out;
}

std::vector<Json> sax_workloads(const std::string& page, const std::string& kind) {
  std::vector<WorkloadSummary> got;
  parse_workload_page(page, kind, got);
  std::vector<Json> out;
  for (const auto& w : got) out.push_back(to_json(w));
  return out;
}

std::vector<Json> sax_pods(const std::string& page) {
  std::vector<PodSummary> got;
  parse_pod_page(page, got);
  std::vector<Json> out;
  for (const auto& p : got) out.push_back(to_json(p));
  return out;
}

std::vector<Json> tree_pods(const std::string& page) {
  std::vector<Json> out;
  const Json doc = Json::parse(page);
  for (const auto& item : doc["items"]) out.push_back(to_json(summarize_pod(item)));
  return out;
}

// An MPIJob and a batch Job the way the API server lists them (no kind on the items), with
// the fields list never reads around the ones it does.
const std::string kWorkloadPage = R"({
  "kind": "MPIJobList", "apiVersion": "kubeflow.org/v2beta1",
  "metadata": {"resourceVersion": "977", "continue": "next-page", "remainingItemCount": 3},
  "items": [
    {"metadata": {"name": "train", "namespace": "runai-p", "uid": "u1", "creationTimestamp": "2026-01-02T03:04:05Z",
                  "labels": {"kai.scheduler/queue": "p", "project": "p", "priorityClassName": "train"},
                  "annotations": {"user": "alice", "lanectl.io/spec": "{\"name\": \"train\"}",
                                  "kubectl.kubernetes.io/last-applied-configuration": "{\"big\": true}"},
                  "managedFields": [{"manager": "x", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]},
     "spec": {"slotsPerWorker": 2, "runPolicy": {"cleanPodPolicy": "Running"},
              "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{"name": "l", "image": "launcher:1"}]}}},
                "Worker": {"replicas": 3, "template": {
                  "metadata": {"annotations": {"gpu-fraction": "0.5"}, "labels": {"x": "y"}},
                  "spec": {"volumes": [{"name": "v", "emptyDir": {}}],
                           "containers": [{"name": "w", "image": "worker:2", "env": [{"name": "image", "value": "no"}],
                                           "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "4"}}},
                                          {"name": "side", "image": "sidecar:1",
                                           "resources": {"limits": {"nvidia.com/gpu": 7}}}]}}}}},
     "status": {"startTime": "2026-01-02T03:05:00Z",
                "conditions": [{"type": "Created", "status": "True", "reason": "MPIJobCreated", "message": "made"},
                               {"type": "Running", "status": "True", "lastTransitionTime": "2026-01-02T03:05:00Z"}]}},
    {"kind": "Job", "metadata": {"name": "launcher-job", "namespace": "runai-p", "labels": {"user": "bob"},
                                 "ownerReferences": [{"apiVersion": "v1", "kind": "Other", "name": "o"},
                                                     {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "name": "train"}]},
     "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "batch:3",
                                                    "resources": {"limits": {"nvidia.com/gpu": 2}}}]}}},
     "status": {"completionTime": "2026-01-02T04:00:00Z", "conditions": [{"type": "Complete", "status": "True"}]}}
  ]
})";

const std::string kPodPage = R"({
  "kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "978"},
  "items": [
    {"metadata": {"name": "train-worker-0", "namespace": "runai-p", "creationTimestamp": "2026-01-02T03:04:06Z",
                  "labels": {"training.kubeflow.org/job-name": "train", "training.kubeflow.org/job-role": "worker",
                             "job-name": "not-this-one", "other": "x"},
                  "annotations": {"gpu-fraction": "0.25", "unrelated": "y"},
                  "ownerReferences": [{"kind": "MPIJob", "name": "train"}]},
     "spec": {"nodeName": "node-a", "tolerations": [{"key": "nodeName", "operator": "Exists"}],
              "containers": [{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "9"}}},
                             {"name": "b"},
                             {"name": "c", "resources": {"limits": {"nvidia.com/gpu": 2}}}]},
     "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                "podIP": "10.244.1.7", "startTime": "2026-01-02T03:04:07Z",
                "containerStatuses": [{"name": "a", "state": {"running": {"startedAt": "x"}}}]}},
    {"metadata": {"name": "batch-abc", "namespace": "runai-p", "labels": {"job-name": "batch"}},
     "spec": {"containers": [{"name": "only"}]},
     "status": {}}
  ]
})";

}  // namespace

TEST_CASE("list page parse: every field list reads from MPIJobs and Jobs", "[submit_kube][fast]") {
  std::vector<WorkloadSummary> got;
  auto meta = parse_workload_page(kWorkloadPage, "MPIJob", got);
  CHECK(meta.continue_token == "next-page");
  CHECK(meta.resource_version == "977");
  REQUIRE(got.size() == 2);
  const auto& m = got[0];
  CHECK(m.kind == "MPIJob");  // from the listed resource: the item has none
  CHECK(m.name == "train");
  CHECK(m.ns == "runai-p");
  CHECK(m.created == "2026-01-02T03:04:05Z");
  CHECK(m.labels == StringPairs{{"kai.scheduler/queue", "p"}, {"project", "p"}, {"priorityClassName", "train"}});
  // Only the annotations job_state reads are kept.
  CHECK(m.annotations == StringPairs{{"user", "alice"}, {"lanectl.io/spec", "{\"name\": \"train\"}"}});
  CHECK_FALSE(m.owned_by_mpijob);
  CHECK(m.slots_per_worker == 2);
  CHECK(m.worker_replicas == 3);
  CHECK(m.worker_template.has_spec);
  CHECK(m.worker_template.has_container);
  CHECK(m.worker_template.first_image == "worker:2");  // containers[0], not the sidecar or env
  REQUIRE(m.worker_template.first_gpu);
  CHECK(m.worker_template.first_gpu->is_text);
  CHECK(m.worker_template.first_gpu->text == "1");
  CHECK(m.worker_template.fraction == std::optional<std::string>("0.5"));
  CHECK_FALSE(m.job_template.has_spec);  // the Launcher's template is not the job's
  CHECK(m.start_time == "2026-01-02T03:05:00Z");
  CHECK(m.completion_time.empty());
  REQUIRE(m.conditions.size() == 2);
  CHECK(m.conditions[0].type == "Created");
  CHECK(m.conditions[0].status == "True");
  CHECK(m.conditions[0].reason == "MPIJobCreated");
  CHECK(m.conditions[0].message == "made");
  CHECK(m.conditions[1].type == "Running");

  const auto& j = got[1];
  CHECK(j.kind == "Job");  // its own kind is kept
  CHECK(j.owned_by_mpijob);
  CHECK(j.labels == StringPairs{{"user", "bob"}});
  CHECK(j.job_template.has_spec);
  CHECK(j.job_template.first_image == "batch:3");
  REQUIRE(j.job_template.first_gpu);
  CHECK_FALSE(j.job_template.first_gpu->is_text);
  CHECK(j.job_template.first_gpu->number == 2);
  CHECK(j.worker_replicas == 1);  // defaults without mpiReplicaSpecs
  CHECK(j.slots_per_worker == 1);
  CHECK(j.completion_time == "2026-01-02T04:00:00Z");
  REQUIRE(j.conditions.size() == 1);
  CHECK(j.conditions[0].type == "Complete");

  CHECK(sax_workloads(kWorkloadPage, "MPIJob") == tree_workloads(kWorkloadPage, "MPIJob"));
}

TEST_CASE("list page parse: every field list reads from Pods", "[submit_kube][fast]") {
  std::vector<PodSummary> got;
  auto meta = parse_pod_page(kPodPage, got);
  CHECK(meta.continue_token.empty());
  CHECK(meta.resource_version == "978");
  REQUIRE(got.size() == 2);
  const auto& p = got[0];
  CHECK(p.name == "train-worker-0");
  CHECK(p.ns == "runai-p");
  CHECK(p.created == "2026-01-02T03:04:06Z");
  CHECK(p.mpi_job_name == "train");
  CHECK(p.job_name == "not-this-one");
  CHECK(p.role == "worker");
  CHECK(p.phase == "Running");
  CHECK(p.node == "node-a");
  CHECK(p.ip == "10.244.1.7");
  CHECK(p.start_time == "2026-01-02T03:04:07Z");
  REQUIRE(p.gpus.size() == 2);  // limits only, of the containers that set one
  CHECK(p.gpus[0].text == "1");
  CHECK_FALSE(p.gpus[1].is_text);
  CHECK(p.gpus[1].number == 2);
  CHECK(p.fraction == std::optional<std::string>("0.25"));
  const auto& b = got[1];
  CHECK(b.job_name == "batch");
  CHECK(b.mpi_job_name.empty());
  CHECK(b.role.empty());
  CHECK(b.phase == "Pending");  // no status.phase yet
  CHECK(b.node.empty());
  CHECK(b.gpus.empty());
  CHECK_FALSE(b.fraction);

  CHECK(sax_pods(kPodPage) == tree_pods(kPodPage));
}

TEST_CASE("list page parse: missing and null fields take the defaults", "[submit_kube][fast]") {
  const std::string workloads = R"({"metadata": null, "items": [
    {},
    {"kind": null, "metadata": {"name": null, "labels": null, "annotations": {"user": null},
                                "ownerReferences": null},
     "spec": {"slotsPerWorker": null, "mpiReplicaSpecs": {"Worker": {"replicas": null, "template": {"spec": null}}},
              "template": {"spec": {"containers": []}}},
     "status": {"conditions": null, "startTime": null}},
    {"kind": "", "metadata": {"labels": {"a": 1, "b": "two"}},
     "slotsPerWorker": 4,
     "spec": {"slotsPerWorker": 1e300, "mpiReplicaSpecs": {"Worker": {"replicas": 2.0}},
              "template": {"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": null}}}]}}},
     "status": {"conditions": [{"type": "Failed"}]}}
  ]})";
  std::vector<WorkloadSummary> got;
  auto meta = parse_workload_page(workloads, "Job", got);
  CHECK(meta.continue_token.empty());
  CHECK(meta.resource_version.empty());
  REQUIRE(got.size() == 3);
  for (const auto& w : got) CHECK(w.kind == "Job");
  CHECK(got[0].name.empty());
  CHECK(got[0].labels.empty());
  CHECK_FALSE(got[0].job_template.has_spec);
  CHECK(got[1].annotations.empty());
  CHECK(got[1].worker_replicas == 1);
  CHECK(got[1].slots_per_worker == 1);
  CHECK_FALSE(got[1].worker_template.has_spec);  // spec: null
  CHECK(got[1].job_template.has_spec);
  CHECK_FALSE(got[1].job_template.has_container);  // no containers[0]
  CHECK(got[1].conditions.empty());
  CHECK(got[2].labels == StringPairs{{"b", "two"}});  // label values are strings; others are left out
  CHECK(got[2].slots_per_worker == std::numeric_limits<int>::max());  // clamped, not undefined
  CHECK(got[2].worker_replicas == 2);
  REQUIRE(got[2].job_template.first_gpu);
  CHECK(got[2].job_template.first_gpu->number == 0);
  REQUIRE(got[2].conditions.size() == 1);
  CHECK(got[2].conditions[0].status.empty());
  CHECK(sax_workloads(workloads, "Job") == tree_workloads(workloads, "Job"));

  const std::string pods = R"({"items": [{}, {"metadata": {"labels": null}, "status": {"phase": null},
                                             "spec": {"containers": null, "nodeName": null}}]})";
  std::vector<PodSummary> pgot;
  parse_pod_page(pods, pgot);
  REQUIRE(pgot.size() == 2);
  CHECK(pgot[0].phase == "Pending");
  CHECK(pgot[1].phase == "Pending");
  CHECK(pgot[1].gpus.empty());
  CHECK(sax_pods(pods) == tree_pods(pods));

  std::vector<PodSummary> none;
  CHECK(parse_pod_page(R"({"items": null})", none).continue_token.empty());
  CHECK(parse_pod_page("{}", none).resource_version.empty());
  CHECK(parse_pod_page("[]", none).continue_token.empty());
  CHECK(none.empty());
}

TEST_CASE("list page parse: escapes and unicode are decoded", "[submit_kube][fast]") {
  const std::string page = R"({"items": [{"metadata": {
      "name": "caf\u00e9-\ud83d\ude80", "namespace": "runai-p",
      "labels": {"kai.scheduler/queue": "q\"uoted\\back", "t\u0061b": "a\tb"},
      "annotations": {"user": "Zo\u00eb \u4e2d\u6587\n"}}}]})";
  std::vector<WorkloadSummary> got;
  parse_workload_page(page, "MPIJob", got);
  REQUIRE(got.size() == 1);
  CHECK(got[0].name == "caf\xc3\xa9-\xf0\x9f\x9a\x80");
  CHECK(got[0].labels == StringPairs{{"kai.scheduler/queue", "q\"uoted\\back"}, {"tab", "a\tb"}});
  CHECK(*find_value(got[0].annotations, "user") == "Zo\xc3\xab \xe4\xb8\xad\xe6\x96\x87\n");
  CHECK(sax_workloads(page, "MPIJob") == tree_workloads(page, "MPIJob"));
}

TEST_CASE("list page parse: unknown fields are skipped, also where they reuse known names", "[submit_kube][fast]") {
  // Known names inside unknown objects, and known objects of the wrong type, must not leak.
  const std::string page = R"({"extra": {"items": [{"metadata": {"name": "decoy"}}]},
    "metadata": {"continue": "tok", "nested": {"continue": "no"}},
    "items": [{"metadata": {"name": "real", "extra": {"name": "decoy", "labels": {"x": "y"}}, "labels": ["x"]},
               "spec": {"nodeName": "n1", "overhead": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "5"}}}]},
                        "containers": {"not": "an array"}, "initContainers": [{"image": "init"}]},
               "status": {"phase": "Succeeded", "extra": {"phase": "Failed"}},
               "unknownTopLevel": [[[{"metadata": {"name": "deep"}}]], 1.5e3, true, null]}]})";
  std::vector<PodSummary> got;
  auto meta = parse_pod_page(page, got);
  CHECK(meta.continue_token == "tok");
  REQUIRE(got.size() == 1);
  CHECK(got[0].name == "real");
  CHECK(got[0].node == "n1");
  CHECK(got[0].phase == "Succeeded");
  CHECK(got[0].gpus.empty());
  CHECK(got[0].mpi_job_name.empty());
  CHECK(sax_pods(page) == tree_pods(page));
}

TEST_CASE("list page parse: malformed JSON is a parse error, also inside skipped values", "[submit_kube][fast]") {
  std::vector<PodSummary> pods;
  CHECK_THROWS_AS(parse_pod_page(R"({"items": [{"metadata": {"name": "a"})", pods), Json::parse_error);
  CHECK_THROWS_AS(parse_pod_page(R"({"items": [{"spec": {"volumes": [1, 2,]}}]})", pods), Json::parse_error);
  CHECK_THROWS_AS(parse_pod_page(R"({"items": []} trailing)", pods), Json::parse_error);
  std::vector<WorkloadSummary> ws;
  CHECK_THROWS_AS(parse_workload_page(R"({"items": [{"metadata": {"name": "\x"}}]})", "Job", ws), Json::parse_error);
}

TEST_CASE("list pages: a malformed page is an error naming the list", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::kube::KubeClient client(server.connection());
  server.fault({{"method", "GET"}, {"path", "/pods"}, {"action", "malformed"}, {"count", 1}});
  std::vector<PodSummary> pods;
  try {
    client.list_pages(
        res::kPod, "runai-p", {}, [&](const std::string& body) { return parse_pod_page(body, pods); }, {});
    FAIL("no error");
  } catch (const lane::Error& e) {
    std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("list pods in runai-p"));
    CHECK_THAT(what, Catch::Contains("malformed JSON"));
  }
}

TEST_CASE("list pages: pages continue until the last, and a list starts over after 410", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  lane::kube::KubeClient client(server.connection());
  for (int i = 0; i < 5; ++i) {
    server.control("/_test/object", {{"apiVersion", "v1"},
                                     {"kind", "Pod"},
                                     {"metadata", {{"name", "p-" + std::to_string(i)},
                                                   {"namespace", "runai-p"},
                                                   {"labels", {{"job-name", "j"}}}}},
                                     {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}},
                                     {"status", {{"phase", i % 2 ? "Running" : "Pending"}}}});
  }
  lane::kube::ListOptions o;
  o.limit = 2;
  o.label_selector = "job-name";
  std::vector<PodSummary> pods;
  int pages = 0, restarts = 0;
  auto parse = [&](const std::string& body) {
    ++pages;
    return parse_pod_page(body, pods);
  };
  auto restart = [&] {
    ++restarts;
    pods.clear();
  };
  std::string rv = client.list_pages(res::kPod, "runai-p", o, parse, restart);
  CHECK_FALSE(rv.empty());
  CHECK(pages == 3);
  REQUIRE(pods.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(pods[i].name == "p-" + std::to_string(i));
    CHECK(pods[i].phase == (i % 2 ? "Running" : "Pending"));
  }
  // The second page's token has expired: the caller drops what it had and the list restarts.
  server.fault({{"method", "GET"}, {"path", "continue="}, {"action", "gone"}, {"count", 1}});
  pods.clear();
  pages = 0;
  client.list_pages(res::kPod, "runai-p", o, parse, restart);
  CHECK(restarts == 1);
  CHECK(pages == 4);  // page 1, (page 2 gone), page 1, 2, 3
  CHECK(pods.size() == 5);
}
