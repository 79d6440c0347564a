// The Nodes/GPUs and Snapshots pages' pure parts: the per-GPU allocation document, the
// nvidia-smi CSV parser and ring buffer, the sampler against a fake nvidia-smi, the lineage graph.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "dashboard/gpu_allocation.h"
#include "dashboard/gpu_sampler.h"
#include "dashboard/lineage_graph.h"

using namespace lane;
using namespace lane::dashboard;
using nlohmann::json;

namespace {

submit::NodeStatus node(const std::string& name, int gpus) {
  submit::NodeStatus n;
  n.spec = {name, gpus};
  return n;
}

submit::GpuHold hold(const std::string& job, const std::string& pod, std::vector<int> gpus, double share) {
  submit::GpuHold h{job, pod, gpus, share, 0};
  h.gpus = share * static_cast<double>(gpus.size());
  return h;
}

const json* find_node(const json& graph, const std::string& id) {
  for (const auto& n : graph["nodes"])
    if (n["id"] == id) return &n;
  return nullptr;
}

bool has_edge(const json& graph, const std::string& from, const std::string& to, const std::string& kind) {
  for (const auto& e : graph["edges"])
    if (e["from"] == from && e["to"] == to && e["kind"] == kind) return true;
  return false;
}

}  // namespace

TEST_CASE("per-GPU allocation: fractions of one GPU are shares labelled with their pods", "[dashboard][fast]") {
  auto n = node("node-a", 2);
  n.holds = {hold("team/half", "half-0", {0}, 0.5), hold("team/quarter", "quarter-0", {0}, 0.25),
             hold("team/whole", "whole-0", {1}, 1.0)};
  n.gpus_allocated = 1.75;
  json doc = gpus_document({n});
  REQUIRE(doc.size() == 1);
  const json& d = doc[0];
  CHECK(d["name"] == "node-a");
  CHECK(d["devicesKnown"] == true);
  REQUIRE(d["devices"].size() == 2);
  CHECK(d["devices"][0]["allocated"].get<double>() == Approx(0.75));
  REQUIRE(d["devices"][0]["shares"].size() == 2);
  CHECK(d["devices"][0]["shares"][0] == json{{"job", "team/half"}, {"pod", "half-0"}, {"share", 0.5}});
  CHECK(d["devices"][0]["shares"][1]["job"] == "team/quarter");
  CHECK(d["devices"][1]["allocated"].get<double>() == Approx(1.0));
  CHECK(d["devices"][1]["shares"][0]["pod"] == "whole-0");
  CHECK(d["unassigned"].empty());
}

TEST_CASE("per-GPU allocation: a pod on several GPUs holds each, unknown devices are unassigned", "[dashboard][fast]") {
  auto n = node("n", 4);
  n.holds = {hold("p/two", "two-worker-0", {1, 2}, 1.0)};
  json doc = gpus_document({n});
  CHECK(doc[0]["devices"][0]["shares"].empty());
  CHECK(doc[0]["devices"][1]["shares"][0]["job"] == "p/two");
  CHECK(doc[0]["devices"][2]["shares"][0]["job"] == "p/two");
  CHECK(doc[0]["devices"][3]["shares"].empty());

  // Kubernetes: the pod's GPUs without device indices.
  auto k = node("aks-gpu", 2);
  k.holds = {submit::GpuHold{"p/frac", "frac-0", {}, 0.5, 0.5}};
  json kd = gpus_document({k});
  CHECK(kd[0]["devicesKnown"] == false);
  REQUIRE(kd[0]["unassigned"].size() == 1);
  CHECK(kd[0]["unassigned"][0]["gpus"].get<double>() == Approx(0.5));
  CHECK(kd[0]["devices"][0]["shares"].empty());

  // A device index beyond the node's GPUs is not dropped.
  auto s = node("shrunk", 1);
  s.holds = {hold("p/old", "old-0", {3}, 1.0)};
  json sd = gpus_document({s});
  CHECK(sd[0]["unassigned"].size() == 1);
  CHECK(sd[0]["devices"][0]["shares"].empty());
}

TEST_CASE("nvidia-smi CSV: readings, [N/A] fields, malformed lines reported and skipped", "[dashboard][fast]") {
  auto r = parse_nvidia_smi_csv(
      "0, GPU-aaaa, 37, 1024, 16384\n"
      "\n"
      "1, GPU-bbbb, [N/A], 0, 81920\n"
      "2, GPU-cccc, 50\n"
      "x, GPU-dddd, 1, 2, 3\n"
      "3, GPU-eeee, 140, 1, 2\n"
      "4, GPU-ffff, 1, lots, 2\n"
      "5, , 1, 2, 3\n"
      "6, GPU-gggg, 5, 6, 7, 8\n"
      "7, GPU-hhhh, -1, 6, 7\n");
  REQUIRE(r.gpus.size() == 2);
  CHECK(r.gpus[0].index == 0);
  CHECK(r.gpus[0].uuid == "GPU-aaaa");
  CHECK(*r.gpus[0].utilization_percent == 37);
  CHECK(*r.gpus[0].memory_used_mib == 1024);
  CHECK(*r.gpus[0].memory_total_mib == 16384);
  CHECK(r.gpus[1].index == 1);
  CHECK_FALSE(r.gpus[1].utilization_percent);
  CHECK(*r.gpus[1].memory_total_mib == 81920);
  REQUIRE(r.errors.size() == 7);
  CHECK(r.errors[0].rfind("line 4: expected 5", 0) == 0);
  CHECK(r.errors[1].rfind("line 5: index 'x'", 0) == 0);
  CHECK(r.errors[2].rfind("line 6: utilization.gpu '140'", 0) == 0);
  CHECK(r.errors[3].rfind("line 7: memory 'lots'", 0) == 0);
  CHECK(r.errors[4] == "line 8: empty uuid");
  CHECK(r.errors[5].rfind("line 9: expected 5", 0) == 0);
  CHECK(r.errors[6].rfind("line 10: utilization.gpu '-1'", 0) == 0);
  CHECK(parse_nvidia_smi_csv("").gpus.empty());
}

TEST_CASE("the GPU history keeps at most its capacity per GPU, oldest dropped", "[dashboard][fast]") {
  GpuHistory h(3);
  for (int i = 0; i < 5; ++i) {
    GpuReading a{0, "GPU-a", double(i), 10.0 * i, 100.0};
    GpuReading b{1, "GPU-b", std::nullopt, 1.0, 2.0};
    h.add(1000 * i, {a, b});
  }
  json doc = h.to_json();
  REQUIRE(doc["gpus"].size() == 2);
  const json& s = doc["gpus"][0]["samples"];
  REQUIRE(s.size() == 3);
  CHECK(s[0] == json::array({2000, 2.0, 20.0, 100.0}));
  CHECK(s[2][0] == 4000);
  CHECK(doc["gpus"][1]["samples"][0][1].is_null());
}

TEST_CASE("the sampler runs a fake nvidia-smi found on PATH and keeps its samples", "[dashboard][fast]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("lanectl-fake-smi-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path tool = dir / "nvidia-smi";
  {
    std::ofstream f(tool);
    // Answers only the exact query the sampler must send.
    f << "#!/bin/sh\n"
         "[ \"$1\" = --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total ] || exit 3\n"
         "[ \"$2\" = --format=csv,noheader,nounits ] || exit 4\n"
         "echo '0, GPU-fake-0, 42, 2048, 16384'\n"
         "echo '1, GPU-fake-1, [N/A], 0, 16384'\n";
  }
  ::chmod(tool.c_str(), 0755);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (dir.string() + ":" + old_path).c_str(), 1);
  CHECK(find_on_path("nvidia-smi") == tool);
  {
    auto sampler = make_gpu_sampler("local", std::chrono::milliseconds(100));
    json doc;
    for (int i = 0; i < 100; ++i) {
      doc = sampler->document();
      if (!doc["gpus"].empty() && doc["gpus"][0]["samples"].size() >= 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(doc["available"] == true);
    CHECK(doc["lastError"] == "");
    REQUIRE(doc["gpus"].size() == 2);
    CHECK(doc["gpus"][0]["uuid"] == "GPU-fake-0");
    REQUIRE(doc["gpus"][0]["samples"].size() >= 2);
    CHECK(doc["gpus"][0]["samples"][0][1] == 42.0);
    CHECK(doc["gpus"][1]["samples"][0][1].is_null());
  }
  // A tool that fails is reported, not sampled.
  {
    std::ofstream f(tool);
    f << "#!/bin/sh\necho 'garbage'\nexit 9\n";
  }
  {
    auto sampler = make_gpu_sampler("local", std::chrono::seconds(60));
    json doc;
    for (int i = 0; i < 100 && (doc.is_null() || doc["lastError"] == ""); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      doc = sampler->document();
    }
    CHECK(doc["lastError"] == "nvidia-smi failed (exit status 9)");
    CHECK(doc["gpus"].empty());
  }
  CHECK_FALSE(make_gpu_sampler("kubernetes", std::chrono::seconds(5))->document()["available"].get<bool>());
  ::setenv("PATH", old_path.c_str(), 1);
  fs::remove_all(dir);
  ::setenv("PATH", "/nonexistent-dir", 1);
  auto none = make_gpu_sampler("local", std::chrono::seconds(5))->document();
  ::setenv("PATH", old_path.c_str(), 1);
  CHECK(none["available"] == false);
  CHECK(none["reason"].get<std::string>().find("nvidia-smi is not on PATH") != std::string::npos);
}

TEST_CASE("lineage graph: snapshot -> restored volume -> job -> derived snapshot, secrets masked", "[dashboard][fast]") {
  storage::SnapshotInfo s1;
  s1.name = "base";
  s1.volume = "data";
  s1.job = "train";
  s1.ns = "runai-team";
  s1.created_unix_ms = 1700000000000;
  s1.file_count = 3;
  s1.total_bytes = 2048;
  s1.content_digest = "abc";
  storage::SnapshotInfo s2 = s1;
  s2.name = "derived";
  s2.volume = "restored";
  s2.job = "finetune";

  storage::LineageRecord r1;
  r1.snapshot = "base";
  r1.volume = "data";
  storage::JobRecord j1;
  j1.name = "train";
  j1.ns = "runai-team";
  j1.image = "trainer:1";
  j1.command = {"python", "train.py"};
  j1.env = {{"API_TOKEN", "hunter2"}, {"EPOCHS", "3"}};
  j1.spec = {{"pvcs", json::array({{{"claim", "data"}, {"mountPath", "/data"}}})}, {"gpu", 0.5}};
  r1.job = j1;
  r1.final_metrics = {{"val", {{"accuracy", 0.9}}}};
  storage::LineageRecord r2;  // snapshot create --job finetune on the restored volume
  r2.snapshot = "derived";
  r2.volume = "restored";
  r2.parent_snapshot = "base";
  storage::LineageRecord gone;  // a record whose snapshot was deleted
  gone.snapshot = "old";
  gone.volume = "scratch";

  storage::VolumeInfo data{"data", "1Gi", "", {}, storage::VolumeOrigin::user(), 1, "", "", {}};
  storage::VolumeInfo restored{"restored", "1Gi", "", {}, storage::VolumeOrigin::restore("base"), 2, "", "", {}};

  json g = lineage_graph({s1, s2}, {r1, r2, gone}, {data, restored});
  const json* job = find_node(g, "job:team/train");
  REQUIRE(job);
  CHECK((*job)["kind"] == "job");
  CHECK((*job)["meta"]["env"]["API_TOKEN"] == "****");
  CHECK((*job)["meta"]["env"]["EPOCHS"] == "3");
  CHECK(g.dump().find("hunter2") == std::string::npos);
  CHECK((*job)["meta"]["image"] == "trainer:1");

  const json* base = find_node(g, "snapshot:base");
  REQUIRE(base);
  CHECK((*base)["meta"]["exists"] == true);
  CHECK((*base)["meta"]["files"] == 3);
  CHECK((*base)["meta"]["job"] == "team/train");
  CHECK((*base)["meta"]["finalMetrics"]["val"]["accuracy"] == 0.9);
  REQUIRE(find_node(g, "job:team/finetune"));
  CHECK(find_node(g, "volume:restored"));
  CHECK((*find_node(g, "volume:restored"))["meta"]["createdBy"] == "restore:base");
  const json* old = find_node(g, "snapshot:old");
  REQUIRE(old);
  CHECK((*old)["meta"]["exists"] == false);

  CHECK(has_edge(g, "volume:data", "job:team/train", "mounted"));
  CHECK(has_edge(g, "job:team/train", "snapshot:base", "snapshot"));
  CHECK(has_edge(g, "snapshot:base", "volume:restored", "restored"));
  CHECK(has_edge(g, "volume:restored", "job:team/finetune", "mounted"));
  CHECK(has_edge(g, "job:team/finetune", "snapshot:derived", "snapshot"));
  CHECK(has_edge(g, "volume:scratch", "snapshot:old", "snapshot of"));
  // The restored volume links parent and child: no shortcut edge.
  CHECK_FALSE(has_edge(g, "snapshot:base", "snapshot:derived", "derived"));
  CHECK(g["edges"].size() == 6);

  // Without the restored volume (deleted), the parent is linked to its child directly.
  json g2 = lineage_graph({s1, s2}, {r1, r2}, {data});
  CHECK(has_edge(g2, "snapshot:base", "snapshot:derived", "derived"));
  CHECK((*find_node(g2, "volume:restored"))["meta"]["exists"] == false);
}
