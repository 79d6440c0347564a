// `lanectl lineage` (storage/core/lineage_view.h) and the dashboard's graph render one lineage
// model (storage::LineageLinks): for one store's state they show the same links.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "../storage/dir_volumes.h"
#include "../storage/tree_util.h"
#include "dashboard/lineage_graph.h"
#include "storage/core/lineage_view.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/local/local_snapshot_store.h"

using namespace lane;
using nlohmann::json;

namespace {

// The edges of `kind` that leave "snapshot:<name>", as the names after the "kind:" prefix.
std::set<std::string> edges_from(const json& g, const std::string& name, const std::string& kind) {
  std::set<std::string> out;
  for (const auto& e : g["edges"])
    if (e["from"] == "snapshot:" + name && e["kind"] == kind) {
      std::string to = e["to"];
      out.insert(to.substr(to.find(':') + 1));
    }
  return out;
}

// A local store over one volume "data" holding one file.
struct Store {
  explicit Store(const std::string& tag) : tmp(tag) {
    test::write_text(volumes.create("data", "", "", storage::VolumeOrigin::user()).local_path / "x", "x");
  }
  test::TempDir tmp;
  test::DirVolumes volumes{tmp.path / "volumes"};
  storage::local::LocalSnapshotStore store{tmp.path / "snapshots", volumes};
};

}  // namespace

TEST_CASE("lineage: the CLI's views and the dashboard's graph show the same restores and derivations", "[dashboard][fast]") {
  Store f("lineage-model");
  auto& volumes = f.volumes;
  auto& store = f.store;
  store.create("data", "base", "", {});
  store.restore_to_new_volume("base", "restored");
  store.create("restored", "child", "", {});       // parent base, through the restored volume
  store.restore_to_new_volume("base", "scratch");
  store.create("scratch", "orphan", "", {});       // parent base, whose volume is then deleted
  volumes.remove("scratch");
  store.restore_to_new_volume("child", "again");

  const json g = dashboard::lineage_graph(store.list(std::nullopt), store.all_lineage(), volumes.list());
  for (const char* name : {"base", "child", "orphan"}) {
    INFO(name);
    auto view = storage::lineage_of_snapshot(store, volumes, name);
    REQUIRE(view);
    const std::set<std::string> restored(view->restored_volumes.begin(), view->restored_volumes.end());
    CHECK(edges_from(g, name, "restored") == restored);
    // Every derived snapshot the CLI names is on the graph: directly, or through its restored volume.
    std::set<std::string> direct;
    for (const auto& child : view->derived_snapshots)
      if (!restored.count(store.describe(child).volume)) direct.insert(child);
    CHECK(edges_from(g, name, "derived") == direct);
  }
  CHECK(edges_from(g, "base", "restored") == std::set<std::string>{"restored"});
  CHECK(edges_from(g, "base", "derived") == std::set<std::string>{"orphan"});
  CHECK(edges_from(g, "child", "restored") == std::set<std::string>{"again"});
}

TEST_CASE("lineage graph: snapshots alike in name are labelled by short ID and the part that differs", "[dashboard][fast]") {
  Store f("lineage-labels");
  auto& volumes = f.volumes;
  auto& store = f.store;
  const std::string a = "snap-pvc-download-tusimple-data-0-dist-lane-detection-training-launcher-2026-11-26-14-24-57";
  const std::string b = "snap-pvc-download-tusimple-data-0-retrain-restored-launcher-2026-11-26-14-31-02";
  store.create("data", a, "", {});
  store.create("data", b, "", {});
  const json g = dashboard::lineage_graph(store.list(std::nullopt), store.all_lineage(), volumes.list());
  std::map<std::string, std::string> label;
  for (const auto& n : g["nodes"])
    if (n["kind"] == "snapshot") label[n["name"]] = n["label"];
  REQUIRE(label.size() == 2);
  CHECK(label[a] == storage::short_snapshot_id(store.describe(a)) + " …dist-lane-…");
  CHECK(label[b] == storage::short_snapshot_id(store.describe(b)) + " …retrain-re…");
}
