// AnfSnapshotStore, PVC → volume resolution and the service-level change through the real
// client against fake_arm.py (several polls per operation).
#include <catch2/catch.hpp>

#include "common/error.h"
#include "fake_arm.h"
#include "storage/anf/anf_snapshot_store.h"
#include "storage/anf/volume_resolver.h"
#include "storage/anf/volume_service_level.h"
#include "kube/kube_client.h"

using namespace lane::storage::anf;
using lane::test::FakeArm;
using lane::test::kVolume1;

static std::unique_ptr<AnfSnapshotStore> store_for(FakeArm& arm, std::ostream* progress = nullptr) {
  return std::make_unique<AnfSnapshotStore>(std::make_unique<ArmClient>(arm.options(), progress),
                                            parse_volume_id(kVolume1), "data-pvc");
}

TEST_CASE("anf store: create, list, describe, verify and delete native snapshots", "[anf][fast]") {
  FakeArm arm(nlohmann::json{{"polls", 2}});
  std::ostringstream progress;
  auto store = store_for(arm, &progress);
  auto a = store->create("data-pvc", "snap-a", "job-1", {{"reason", "user"}});
  CHECK(a.name == "snap-a");
  CHECK(a.volume == "data-pvc");
  CHECK(a.job == "job-1");
  CHECK(a.metadata["anf.provisioningState"] == "Succeeded");
  CHECK(progress.str().find("snapshot snap-a: in progress") != std::string::npos);
  store->create("", "snap-b", "", {});
  CHECK_THROWS_AS(store->create("", "snap-b", "", {}), lane::UsageError);  // duplicate
  CHECK_THROWS_AS(store->create("other-pvc", "snap-c", "", {}), lane::UsageError);  // wrong volume
  auto all = store->list(std::nullopt);
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "snap-a");
  CHECK(all[1].name == "snap-b");
  CHECK(all[0].created_unix_ms < all[1].created_unix_ms);
  CHECK(store->describe("snap-b").metadata["anf.id"] == std::string(kVolume1) + "/snapshots/snap-b");
  CHECK(store->verify("snap-a").ok());
  store->remove("snap-a");
  CHECK(store->list(std::nullopt).size() == 1);
  CHECK_THROWS_WITH(store->describe("snap-a"), Catch::Contains("not found"));
  CHECK_THROWS_WITH(store->remove("snap-a"), Catch::Contains("not found"));
}

TEST_CASE("anf store: revert lists and deletes the newer snapshots", "[anf][fast]") {
  FakeArm arm(nlohmann::json{{"polls", 2}});
  auto store = store_for(arm);
  for (const char* n : {"s1", "s2", "s3"}) store->create("", n, "", {});
  auto plan = store->plan_revert("s1", "data-pvc");
  CHECK(plan.newer_snapshots == std::vector<std::string>{"s2", "s3"});
  CHECK(store->list(std::nullopt).size() == 3);  // planning changes nothing
  auto done = store->revert_in_place("s1", "");
  CHECK(done.newer_snapshots.size() == 2);
  auto left = store->list(std::nullopt);
  REQUIRE(left.size() == 1);
  CHECK(left[0].name == "s1");
  CHECK_THROWS_WITH(store->plan_revert("zz", ""), Catch::Contains("not a snapshot of ANF volume"));
}

TEST_CASE("anf store: restore creates a new volume from the snapshot (Azure-AsyncOperation)", "[anf][fast]") {
  FakeArm arm(nlohmann::json{{"polls", 3}});
  auto store = store_for(arm);
  store->create("", "base", "", {});
  store->restore_to_new_volume("base", "restored1");
  auto st = arm.state();
  std::string new_id = std::string(kVolume1).replace(std::string(kVolume1).find("volume1"), 7, "restored1");
  CHECK(std::find(st["volumes"].begin(), st["volumes"].end(), new_id) != st["volumes"].end());
  ArmClient check(arm.options(), nullptr);
  auto v = check.get(new_id);
  CHECK(v["properties"]["snapshotId"] == std::string(kVolume1) + "/snapshots/base");
  CHECK(v["properties"]["creationToken"] == "restored1");
  CHECK(v["properties"]["usageThreshold"] == 107374182400);
  CHECK_THROWS_AS(store->restore_to_new_volume("base", "restored1"), lane::UsageError);  // exists
  CHECK_THROWS_AS(store->restore_to_new_volume("base", "9bad"), lane::UsageError);
}

TEST_CASE("anf store: lineage records are kept in a local JSON store", "[anf][fast]") {
  FakeArm arm;
  lane::test::TempDir dir;
  auto o = arm.options();
  o.lineage_dir = dir.path / "anf-lineage";
  AnfSnapshotStore store(std::make_unique<ArmClient>(o, nullptr), parse_volume_id(kVolume1), "data-pvc");
  lane::storage::LineageRecord r;
  r.snapshot = "snap-x";
  r.volume = "data-pvc";
  r.final_metrics = {{"accuracy", 0.9}};
  store.record_lineage(r);
  auto back = store.lineage("snap-x");
  REQUIRE(back.has_value());
  CHECK(back->final_metrics["accuracy"] == 0.9);
  CHECK(store.all_lineage().size() == 1);
  CHECK_FALSE(store.lineage("other").has_value());
}

TEST_CASE("anf resolve: PVC → PV internalID, and the creationToken fallback", "[anf][fast]") {
  FakeArm arm;
  arm.add_pvc("runai-team", "data", "pvc-1111", {{"internalID", kVolume1}, {"internalName", "pvc-1111"}});
  arm.add_pvc("runai-team", "old", "pvc-2222", {{"internalName", "my-unique-file-path"}});
  arm.add_pvc("runai-team", "nfs", "pv-nfs", nlohmann::json::object(), "nfs.csi.k8s.io");
  lane::kube::Connection c;
  c.server = arm.url();
  lane::kube::KubeClient kube(c);
  auto o = arm.options();
  ArmClient client(o, nullptr);
  auto r = resolve_pvc(kube, client, "runai-team", "data");
  CHECK(r.method == "internalID");
  CHECK(r.ref.id() == kVolume1);
  CHECK_THROWS_WITH(resolve_pvc(kube, client, "runai-team", "old"), Catch::Contains("netappAccounts"));
  o.netapp_accounts = {"myRG/account1"};
  ArmClient with_accounts(o, nullptr);
  auto f = resolve_pvc(kube, with_accounts, "runai-team", "old");
  CHECK(f.method == "creationToken");
  CHECK(f.ref.volume == "volume1");
  CHECK_THROWS_WITH(resolve_pvc(kube, client, "runai-team", "nfs"), Catch::Contains("not provisioned by Trident"));
  CHECK_THROWS_WITH(resolve_pvc(kube, client, "runai-team", "missing"), Catch::Contains("not found"));
}

TEST_CASE("anf service level: pool change to a pool of that level, with constraints explained", "[anf][fast]") {
  FakeArm arm(nlohmann::json{{"pools", {{{"name", "pool-ultra"}, {"serviceLevel", "Ultra"}, {"size", 1099511627776}},
                                        {{"name", "pool-std"}, {"serviceLevel", "Standard"}, {"size", 1099511627776}}}},
                             {"volumes", {{{"pool", "pool-std"}, {"name", "big"},
                                           {"properties", {{"usageThreshold", 1099511627776}, {"creationToken", "big"}}}}}}});
  ArmClient client(arm.options(), nullptr);
  auto ref = parse_volume_id(kVolume1);
  CHECK_THROWS_WITH(change_service_level(client, ref, "Premium", ""), Catch::Contains("already in Premium pool 'pool1'"));
  CHECK_THROWS_AS(change_service_level(client, ref, "Gold", ""), lane::UsageError);
  // pool-std's 1 TiB is fully used by 'big'.
  CHECK_THROWS_WITH(change_service_level(client, ref, "Standard", ""), Catch::Contains("too small"));
  auto r = change_service_level(client, ref, "ultra", "");
  CHECK(r.from_pool == "pool1");
  CHECK(r.to_pool == "pool-ultra");
  auto moved = ref.in_pool("pool-ultra");
  auto facts = describe_volume(client, moved);
  CHECK(facts.service_level == "Ultra");
  CHECK(facts.pool == "pool-ultra");
  CHECK(facts.quota_bytes == 107374182400);
  CHECK_THROWS_WITH(describe_volume(client, ref), Catch::Contains("not found"));
}

TEST_CASE("anf service level: no pool of the level in the account", "[anf][fast]") {
  FakeArm arm;
  ArmClient client(arm.options(), nullptr);
  CHECK_THROWS_WITH(change_service_level(client, parse_volume_id(kVolume1), "Ultra", ""),
                    Catch::Contains("no Ultra capacity pool") && Catch::Contains("same account"));
}
