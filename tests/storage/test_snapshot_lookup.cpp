// Snapshot names people can type (storage/core/snapshot_lookup.h): IDs, unique prefixes of a
// name or an ID, a job's snapshot, the graph's labels; and the local store's progress reports.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "dir_volumes.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/local/local_snapshot_store.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using lane::test::TempDir;
using lane::test::write_text;

namespace {

const std::string kDemo = "snap-pvc-download-tusimple-data-0-dist-lane-detection-training-launcher-2026-11-26-14-24-57";
const std::string kRetrain = "snap-pvc-download-tusimple-data-0-retrain-restored-launcher-2026-11-26-14-31-02";

SnapshotInfo snap(const std::string& name, int64_t created, const std::string& job = "") {
  SnapshotInfo s;
  s.name = name;
  s.created_unix_ms = created;
  s.job = job;
  return s;
}

std::vector<SnapshotInfo> sample() {
  return {snap(kDemo, 1000, "dist-lane-detection-training"), snap(kRetrain, 2000, "retrain-restored"),
          snap("s1", 3000, "twice"), snap("s1-copy", 4000, "twice")};
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Records what a store reports.
struct Recorder : ProgressSink {
  uint64_t total_bytes = 0, total_files = 0, bytes = 0, files = 0;
  void set_total(uint64_t b, uint64_t f) override { total_bytes = b, total_files = f; }
  void advance(uint64_t b, uint64_t f) override { bytes += b, files += f; }
};

}  // namespace

TEST_CASE("snapshot IDs are SHA-256 of name and creation time, tables show 8 hex digits", "[storage][fast]") {
  const auto s = snap(kDemo, 1000);
  CHECK(snapshot_id(s).size() == 64);
  CHECK(short_snapshot_id(s) == snapshot_id(s).substr(0, 8));
  CHECK(snapshot_id(s) == snapshot_id(snap(kDemo, 1000)));
  CHECK(snapshot_id(s) != snapshot_id(snap(kDemo, 1001)));  // a name reused after a delete
  CHECK(to_json(s)["id"] == snapshot_id(s));
}

TEST_CASE("a snapshot is found by its name, a unique prefix of it, or a unique prefix of its ID", "[storage][fast]") {
  const auto all = sample();
  CHECK(find_snapshot(all, kDemo).name == kDemo);
  CHECK(find_snapshot(all, "snap-pvc-download-tusimple-data-0-d").name == kDemo);
  CHECK(find_snapshot(all, "snap-pvc-download-tusimple-data-0-r").name == kRetrain);
  CHECK(find_snapshot(all, short_snapshot_id(all[1])).name == kRetrain);
  CHECK(find_snapshot(all, snapshot_id(all[1]).substr(0, 5)).name == kRetrain);
  CHECK(find_snapshot(all, "s1").name == "s1");  // an exact name wins over a longer one it prefixes
  CHECK(find_snapshot(all, "s1-").name == "s1-copy");
}

TEST_CASE("an ambiguous snapshot prefix is refused listing every candidate, an unknown one is not found", "[storage][fast]") {
  const auto all = sample();
  const std::string amb = message_of([&] { find_snapshot(all, "snap-pvc-"); });
  CHECK(amb.find("snapshot 'snap-pvc-' is ambiguous: it matches 2 snapshots") != std::string::npos);
  CHECK(amb.find(short_snapshot_id(all[0]) + "  " + kDemo) != std::string::npos);
  CHECK(amb.find(short_snapshot_id(all[1]) + "  " + kRetrain) != std::string::npos);
  CHECK_THROWS_AS(find_snapshot(all, "snap-pvc-"), UsageError);
  CHECK(message_of([&] { find_snapshot(all, "nothing"); }).find("snapshot 'nothing' not found") != std::string::npos);
  CHECK_THROWS_AS(find_snapshot(all, "Snap/../x"), UsageError);
  CHECK_THROWS_AS(find_snapshot(all, ""), UsageError);
}

TEST_CASE("restore --job finds the one snapshot a job took, and refuses none or several", "[storage][fast]") {
  const auto all = sample();
  CHECK(snapshot_of_job(all, "retrain-restored").name == kRetrain);
  CHECK(message_of([&] { snapshot_of_job(all, "nobody"); }).find("job 'nobody' took no snapshot") != std::string::npos);
  const std::string two = message_of([&] { snapshot_of_job(all, "twice"); });
  CHECK(two.find("job 'twice' took 2 snapshots") != std::string::npos);
  CHECK(two.find("  s1\n") != std::string::npos);
  CHECK(two.find("  s1-copy") != std::string::npos);
}

TEST_CASE("graph labels: short ID and the part of the name that differs, not one shared prefix", "[storage][fast]") {
  const auto labels = snapshot_labels({kDemo, kRetrain, "data-v1"}, {"3f2a9c1e", "77ab01cd", ""});
  CHECK(labels[0] == "3f2a9c1e …dist-lane-…");
  CHECK(labels[1] == "77ab01cd …retrain-re…");
  CHECK(labels[2] == "data-v1");  // nothing shared, short: the whole name; no ID (deleted)
  CHECK(snapshot_labels({"a-very-long-snapshot-name-indeed"}, {""})[0] == "a-very-long-snapshot…");
  CHECK(labels[0] != labels[1]);
}

TEST_CASE("the local store reports create, verify and restore progress: totals up front, then every file", "[storage][fast]") {
  TempDir tmp{"snap-progress"};
  test::DirVolumes volumes{tmp.path / "volumes"};
  local::LocalSnapshotStore store{tmp.path / "snapshots", volumes};
  const auto vol = volumes.create("data", "1Gi", "", VolumeOrigin::user()).local_path;
  write_text(vol / "a.bin", std::string(300000, 'a'));
  write_text(vol / "dir/b.bin", std::string(200000, 'b'));
  test::age_tree(vol);
  for (const char* op : {"create", "verify", "restore"}) {
    Recorder r;
    store.report_progress_to(&r);
    if (std::string(op) == "create") store.create("data", "v1", "", {});
    if (std::string(op) == "verify") store.verify("v1");
    if (std::string(op) == "restore") store.restore_to_new_volume("v1", "copy");
    INFO(op);
    CHECK(r.total_bytes == 500000);
    CHECK(r.total_files == 2);
    CHECK(r.bytes == 500000);
    CHECK(r.files == 2);
  }
  store.report_progress_to(nullptr);
}
