// CSI VolumeSnapshots through the SnapshotStore interface, including the end-of-training
// snapshot taken from inside a pod with its service account (in-cluster config over TLS).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "fake_server.h"
#include "storage/kube/csi_snapshot_store.h"
#include "kube/kube_client.h"

using namespace lane::storage;
using namespace lane::storage::kube;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

namespace {

void seed_namespace(lane::kube::KubeClient& c) {
  c.create(res::kNamespace, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "runai-ld"}}}});
}

}  // namespace

TEST_CASE("kube snapshots: create waits for readyToUse, list, restore --to-pvc, delete", "[storage_kube][fast]") {
  lane::test::FakeApiServer server;
  auto client = std::make_shared<lane::kube::KubeClient>(server.connection());
  seed_namespace(*client);
  PvcVolumes volumes(client, "runai-ld", "ReadWriteMany");
  volumes.create("pvc-data", "100Gi", "azurenetappfiles", VolumeOrigin::job("", "download-tusimple-data"));
  CHECK(volumes.find("pvc-data")->storage_class == "azurenetappfiles");
  CHECK(volumes.find("pvc-data")->project.empty());
  CHECK(PvcVolumes(client, "runai-ld", "ReadWriteMany", "ld").list().at(0).project == "ld");

  std::vector<std::string> progress;
  CsiSnapshotOptions o;
  o.ns = "runai-ld";
  o.snapshot_class = "netapp-csi-snapclass";
  o.progress = [&](const std::string& line) { progress.push_back(line); };
  CsiSnapshotStore store(client, o);
  SnapshotInfo info = store.create("pvc-data", "snap-1", "dist-lane-detection-training", {{"reason", "end-of-training"}});
  CHECK(info.name == "snap-1");
  CHECK(info.volume == "pvc-data");
  CHECK(info.job == "dist-lane-detection-training");
  CHECK(info.total_bytes == 100ull << 30);
  CHECK_FALSE(info.files_known);  // a CSI snapshot has a size, no file counts
  CHECK(info.metadata.at("reason") == "end-of-training");
  CHECK(info.metadata.at("readyToUse") == "true");
  REQUIRE(progress.size() >= 2);  // not ready, then ready
  CHECK(progress.front().find("readyToUse=false") != std::string::npos);
  CHECK(progress.back().find("readyToUse=true") != std::string::npos);
  auto vs = client->get(res::kVolumeSnapshot, "runai-ld", "snap-1");
  CHECK(vs["spec"]["volumeSnapshotClassName"] == "netapp-csi-snapclass");

  CHECK_THROWS_AS(store.create("pvc-data", "snap-1", "", {}), lane::UsageError);
  CHECK_THROWS_WITH(store.create("absent", "snap-2", "", {}), Catch::Contains("volume 'absent' does not exist"));
  CHECK_THROWS_AS(store.create("pvc-data", "Bad_Name", "", {}), lane::UsageError);

  store.create("pvc-data", "snap-2", "", {});
  auto all = store.list(std::nullopt);
  REQUIRE(all.size() == 2);
  CHECK(store.list(std::string("other")).empty());
  CHECK(store.verify("snap-1").ok());
  CHECK(store.plan_revert("snap-1", "pvc-data").newer_snapshots.size() <= 1);
  CHECK_THROWS_WITH(store.revert_in_place("snap-1", "pvc-data"), Catch::Contains("--to-pvc"));

  store.restore_to_new_volume("snap-1", "restored-tusimple");
  auto pvc = client->get(res::kPvc, "runai-ld", "restored-tusimple");
  CHECK(pvc["spec"]["dataSource"]["kind"] == "VolumeSnapshot");
  CHECK(pvc["spec"]["dataSource"]["name"] == "snap-1");
  CHECK(pvc["spec"]["dataSource"]["apiGroup"] == "snapshot.storage.k8s.io");
  CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "100Gi");
  CHECK(pvc["spec"]["storageClassName"] == "azurenetappfiles");
  CHECK(pvc["spec"]["accessModes"][0] == "ReadWriteMany");
  CHECK_THROWS_AS(store.restore_to_new_volume("snap-1", "restored-tusimple"), lane::UsageError);

  LineageRecord rec;
  rec.snapshot = "snap-1";
  rec.volume = "pvc-data";
  rec.final_metrics = {{"accuracy", 0.95}};
  store.record_lineage(rec);
  REQUIRE(store.lineage("snap-1"));
  CHECK(store.lineage("snap-1")->final_metrics["accuracy"] == 0.95);
  CHECK(store.all_lineage().size() == 1);

  store.remove("snap-1");
  CHECK_FALSE(client->try_get(res::kVolumeSnapshot, "runai-ld", "snap-1"));
  CHECK_FALSE(store.lineage("snap-1"));
  CHECK_THROWS_WITH(store.describe("snap-1"), Catch::Contains("does not exist"));
}

TEST_CASE("kube snapshots: status.error surfaces and leaves no snapshot behind", "[storage_kube][fast]") {
  lane::test::FakeApiServer server;
  auto client = std::make_shared<lane::kube::KubeClient>(server.connection());
  seed_namespace(*client);
  PvcVolumes(client, "runai-ld", "ReadWriteMany").create("pvc-data", "10Gi", "", VolumeOrigin::user());
  server.control("/_test/settings", {{"snapshot_error", "ANF: snapshot quota of the volume exceeded"}});
  CsiSnapshotStore store(client, {"runai-ld", "", "ReadWriteMany", std::chrono::seconds(10), {}});
  CHECK_THROWS_WITH(store.create("pvc-data", "snap-x", "", {}), Catch::Contains("snapshot quota of the volume exceeded"));
  CHECK_FALSE(client->try_get(res::kVolumeSnapshot, "runai-ld", "snap-x"));
}

TEST_CASE("kube snapshots: end-of-training snapshot from a pod's service account over TLS", "[storage_kube][fast]") {
  lane::test::TempDir dir;
  lane::test::make_self_signed_cert(dir.path);
  lane::test::FakeApiServer server({"sa-token-1", dir.path / "cert.pem", dir.path / "key.pem"});
  // The pod's service-account files, as the kubelet projects them.
  std::filesystem::create_directories(dir.path / "sa");
  std::filesystem::copy_file(dir.path / "cert.pem", dir.path / "sa/ca.crt");
  std::ofstream(dir.path / "sa/token") << "sa-token-1";
  std::ofstream(dir.path / "sa/namespace") << "runai-ld";
  setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", std::to_string(server.port()).c_str(), 1);
  auto conn = lane::kube::in_cluster_config(dir.path / "sa");
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  auto client = std::make_shared<lane::kube::KubeClient>(conn);
  seed_namespace(*client);
  PvcVolumes(client, conn.ns, "ReadWriteMany").create("pvc-download-tusimple-data-0", "100Gi", "", VolumeOrigin::user());
  // The token rotates during training; the client picks up the new file.
  server.control("/_test/settings", {{"token", "sa-token-2"}});
  std::ofstream(dir.path / "sa/token.new") << "sa-token-2";
  std::filesystem::last_write_time(dir.path / "sa/token.new",
                                   std::filesystem::last_write_time(dir.path / "sa/token") + std::chrono::seconds(5));
  std::filesystem::rename(dir.path / "sa/token.new", dir.path / "sa/token");
  CsiSnapshotStore store(client, {conn.ns, "netapp-csi-snapclass", "ReadWriteMany", std::chrono::seconds(10), {}});
  std::string name = training_snapshot_name("pvc-download-tusimple-data-0", "dist-lane-detection-training",
                                            1614961422000);
  SnapshotInfo info = store.create("pvc-download-tusimple-data-0", name, "dist-lane-detection-training", {});
  CHECK(info.ns == "runai-ld");
  CHECK(store.describe(name).metadata.at("readyToUse") == "true");
}
