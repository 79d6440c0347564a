// The local snapshot store: round trips, dedup, the digest cache, verify, delete, revert,
// names. Crash and concurrency cases are in test_storage_crash.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/sha256.h"
#include "dir_volumes.h"
#include "storage/local/local_snapshot_store.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using lane::test::TempDir;
using lane::test::write_text;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  TempDir tmp{"snap"};
  test::DirVolumes volumes{tmp.path / "volumes"};
  local::LocalSnapshotStore store{tmp.path / "snapshots", volumes};
  fs::path vol = volumes.create("data", "1Gi", "", lane::storage::VolumeOrigin::user()).local_path;
};

void fill_sample(const fs::path& vol) {
  write_text(vol / "train/a.txt", "alpha\n");
  write_text(vol / "train/b.bin", std::string(100000, 'b'));
  write_text(vol / "train/copy-of-a.txt", "alpha\n");  // same content as a.txt
  write_text(vol / "models/best.pt", "weights-v1");
  fs::create_directories(vol / "empty/nested-empty");
  fs::create_symlink("../train/a.txt", vol / "models/link-to-a");
  fs::create_symlink("dangling-target", vol / "dangling");
  write_text(vol / "secret.key", "k");
  ::chmod((vol / "secret.key").c_str(), 0600);
  write_text(vol / "run.sh", "#!/bin/sh\n");
  ::chmod((vol / "run.sh").c_str(), 0755);
  write_text(vol / "locked/inside.txt", "ro");
  ::chmod((vol / "locked/inside.txt").c_str(), 0444);
  ::chmod((vol / "locked").c_str(), 0555);
  write_text(vol / "zero-length", "");
  test::age_tree(vol);
}

}  // namespace

TEST_CASE("restore to a new volume reproduces the tree byte for byte", "[storage][fast]") {
  Fixture f;
  fill_sample(f.vol);
  SnapshotInfo info = f.store.create("data", "v1", "job-1", {});
  CHECK(info.volume == "data");
  CHECK(info.file_count == 8);
  CHECK(info.content_digest.size() == 64);

  f.store.restore_to_new_volume("v1", "restored");
  auto restored = f.volumes.find("restored");
  REQUIRE(restored);
  CHECK(restored->origin == lane::storage::VolumeOrigin::restore("v1"));
  CHECK(test::describe_tree(restored->local_path) == test::describe_tree(f.vol));

  // The restored copy is independent: writing to it leaves the snapshot intact.
  ::chmod((restored->local_path / "models/best.pt").c_str(), 0644);
  write_text(restored->local_path / "models/best.pt", "changed");
  CHECK(f.store.verify("v1").ok());
  f.store.restore_to_new_volume("v1", "restored-2");
  CHECK(lane::read_file(f.volumes.find("restored-2")->local_path / "models/best.pt") == "weights-v1");
}

TEST_CASE("restore refuses an existing target volume and cleans up a failed restore", "[storage][fast]") {
  Fixture f;
  fill_sample(f.vol);
  f.store.create("data", "v1", "", {});
  CHECK_THROWS_AS(f.store.restore_to_new_volume("v1", "data"), UsageError);
  CHECK_THROWS_AS(f.store.restore_to_new_volume("missing", "x"), Error);

  // Remove one object: the restore fails and leaves no half-filled volume behind.
  auto m = f.store.manifest("v1");
  for (auto& e : m.entries)
    if (e.path == "models/best.pt") fs::remove(f.store.root() / "objects" / e.digest.substr(0, 2) / e.digest.substr(2));
  CHECK_THROWS_AS(f.store.restore_to_new_volume("v1", "broken"), Error);
  CHECK_FALSE(f.volumes.find("broken"));
  CHECK_FALSE(fs::exists(f.tmp.path / "volumes" / "broken"));
}

TEST_CASE("identical contents are stored once and an unchanged volume adds no objects", "[storage][fast]") {
  Fixture f;
  fill_sample(f.vol);
  SnapshotInfo first = f.store.create("data", "v1", "", {});
  // 8 files, a.txt and copy-of-a.txt share content: 7 objects.
  CHECK(f.store.object_count() == 7);
  CHECK(first.new_bytes == first.total_bytes - 6);

  SnapshotInfo second = f.store.create("data", "v2", "", {});
  CHECK(f.store.object_count() == 7);
  CHECK(second.new_bytes == 0);
  CHECK(second.content_digest == first.content_digest);

  // One changed file: exactly one new object, sized like the change.
  write_text(f.vol / "models/best.pt", "weights-v2!");
  SnapshotInfo third = f.store.create("data", "v3", "", {});
  CHECK(f.store.object_count() == 8);
  CHECK(third.new_bytes == 11);
  CHECK(third.content_digest != first.content_digest);
}

TEST_CASE("unchanged files are recognised by path, size, mtime and inode without re-reading", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "big.bin", std::string(5000, 'x'));
  test::age(f.vol / "big.bin");
  f.store.create("data", "v1", "", {});

  // Change the content but restore size and mtime (same inode): the cache must trust the
  // stat data, so the second snapshot records the old digest. This proves no re-hash.
  struct stat before {};
  ::stat((f.vol / "big.bin").c_str(), &before);
  {
    std::fstream io(f.vol / "big.bin", std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(0);
    io << 'Y';
  }
  struct timespec ts[2] = {{0, UTIME_OMIT}, before.st_mtim};
  ::utimensat(AT_FDCWD, (f.vol / "big.bin").c_str(), ts, 0);
  f.store.create("data", "v2", "", {});
  CHECK(f.store.manifest("v2").entries[0].digest == f.store.manifest("v1").entries[0].digest);

  // A new mtime makes it re-read.
  test::age(f.vol / "big.bin", 1800);
  f.store.create("data", "v3", "", {});
  CHECK(f.store.manifest("v3").entries[0].digest == sha256_file_hex(f.vol / "big.bin"));
  CHECK(f.store.manifest("v3").entries[0].digest != f.store.manifest("v1").entries[0].digest);
}

TEST_CASE("a file changed just before the previous snapshot is re-hashed (racy mtime)", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "fresh.txt", "one");  // mtime = now: inside the racy window
  f.store.create("data", "v1", "", {});
  struct stat before {};
  ::stat((f.vol / "fresh.txt").c_str(), &before);
  write_text(f.vol / "fresh.txt", "two");  // same size, same inode
  struct timespec ts[2] = {{0, UTIME_OMIT}, before.st_mtim};
  ::utimensat(AT_FDCWD, (f.vol / "fresh.txt").c_str(), ts, 0);
  f.store.create("data", "v2", "", {});
  CHECK(f.store.manifest("v2").entries[0].digest == sha256_hex("two"));
}

TEST_CASE("verify recomputes digests and names damaged and missing objects", "[storage][fast]") {
  Fixture f;
  fill_sample(f.vol);
  f.store.create("data", "v1", "", {});
  CHECK(f.store.verify("v1").ok());
  CHECK(f.store.verify("v1").objects_checked == 7);

  auto m = f.store.manifest("v1");
  std::string digest_b, digest_model;
  for (auto& e : m.entries) {
    if (e.path == "train/b.bin") digest_b = e.digest;
    if (e.path == "models/best.pt") digest_model = e.digest;
  }
  fs::path obj = f.store.root() / "objects" / digest_b.substr(0, 2) / digest_b.substr(2);
  ::chmod(obj.c_str(), 0644);
  {
    std::fstream io(obj, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(500);
    io << 'Z';  // one flipped byte, same size
  }
  fs::remove(f.store.root() / "objects" / digest_model.substr(0, 2) / digest_model.substr(2));

  VerifyReport r = f.store.verify("v1");
  CHECK_FALSE(r.ok());
  REQUIRE(r.damaged.size() == 2);
  CHECK(r.damaged[0].rfind("models/best.pt: object", 0) == 0);
  CHECK(r.damaged[0].find("missing") != std::string::npos);
  CHECK(r.damaged[1].rfind("train/b.bin: object", 0) == 0);
  CHECK(r.damaged[1].find("corrupted") != std::string::npos);
}

TEST_CASE("deleting a snapshot frees only the objects no other snapshot uses", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "shared.txt", "shared");
  write_text(f.vol / "changes.txt", "version-1");
  test::age_tree(f.vol);
  f.store.create("data", "v1", "", {});
  write_text(f.vol / "changes.txt", "version-2");
  f.store.create("data", "v2", "", {});
  CHECK(f.store.object_count() == 3);

  f.store.remove("v1");
  CHECK(f.store.object_count() == 2);  // version-1 gone, shared + version-2 kept
  CHECK(f.store.verify("v2").ok());
  CHECK_FALSE(f.store.lineage("v1"));
  CHECK_THROWS_AS(f.store.describe("v1"), Error);
  CHECK_THROWS_AS(f.store.remove("v1"), Error);

  f.store.remove("v2");
  CHECK(f.store.object_count() == 0);
  CHECK(f.store.list(std::nullopt).empty());
}

TEST_CASE("snapshot names are validated and must be new", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "x", "x");
  for (std::string bad : std::vector<std::string>{"", "../escape", "a/b", "UPPER", "-lead", "trail-", "dot.ted", "sp ace",
                          std::string(201, 'a')})
    CHECK_THROWS_AS(f.store.create("data", bad, "", {}), UsageError);
  CHECK(f.store.list(std::nullopt).empty());
  f.store.create("data", std::string(200, 'a'), "", {});
  f.store.create("data", "ok-1", "", {});
  CHECK_THROWS_AS(f.store.create("data", "ok-1", "", {}), UsageError);
  CHECK_THROWS_AS(f.store.create("no-such-volume", "ok-2", "", {}), Error);
  CHECK_THROWS_AS(f.store.describe("../../etc/passwd"), UsageError);
  CHECK(f.store.list(std::nullopt).size() == 2);
}

TEST_CASE("revert in place lists newer snapshots and restores the old contents", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "model.pt", "v1");
  f.store.create("data", "s1", "", {});
  write_text(f.vol / "model.pt", "v2");
  write_text(f.vol / "extra.txt", "added later");
  f.store.create("data", "s2", "", {});
  f.store.create("data", "s3", "", {});
  auto other = f.volumes.create("other", "", "", lane::storage::VolumeOrigin::user());
  write_text(other.local_path / "o", "o");
  f.store.create("other", "o1", "", {});

  RevertPlan plan = f.store.plan_revert("s1", "data");
  CHECK(plan.newer_snapshots == std::vector<std::string>{"s2", "s3"});
  CHECK(lane::read_file(f.vol / "model.pt") == "v2");  // planning changes nothing

  CHECK_THROWS_AS(f.store.revert_in_place("o1", "data"), UsageError);  // wrong volume
  f.store.revert_in_place("s1", "data");
  CHECK(lane::read_file(f.vol / "model.pt") == "v1");
  CHECK_FALSE(fs::exists(f.vol / "extra.txt"));
  CHECK(test::describe_tree(f.vol).size() == 1);
  CHECK(f.store.verify("s2").ok());  // the local store keeps the newer snapshots
  // No staging directory is left next to the volume, nor in the staging area.
  int entries = 0;
  for (auto& e : fs::directory_iterator(f.tmp.path / "volumes"))
    entries += e.path().filename().string()[0] == '.' && e.path() != f.volumes.staging_dir();
  CHECK(entries == 0);
  CHECK(fs::is_empty(f.volumes.staging_dir()));
}

TEST_CASE("lineage: every snapshot gets a record, and restores name their parent", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "data/x.txt", "x");
  write_text(f.vol / "out/metrics.json", "{}");
  SnapshotInfo s1 = f.store.create("data", "s1", "", {{"outputPath", "out"}});
  auto rec = f.store.lineage("s1");
  REQUIRE(rec);
  CHECK(rec->volume == "data");
  CHECK(rec->parent_snapshot.empty());
  CHECK(rec->dataset_digest != s1.content_digest);  // the output dir is left out

  f.store.restore_to_new_volume("s1", "copy");
  SnapshotInfo s2 = f.store.create("copy", "s2", "", {{"outputPath", "out"}});
  auto rec2 = f.store.lineage("s2");
  REQUIRE(rec2);
  CHECK(rec2->parent_snapshot == "s1");
  CHECK(rec2->dataset_digest == rec->dataset_digest);  // same data, restored
  CHECK(s2.content_digest == s1.content_digest);

  LineageRecord full = *rec2;
  full.job = JobRecord{"train-2", "default", "img:1", {"scnn-train", "train"},
                       {{"API_TOKEN", "abc"}, {"BATCH_SIZE", "4"}}, "deadbeef", {}};
  full.final_metrics = {{"loss", 0.25}};
  f.store.record_lineage(full);
  auto back = f.store.lineage("s2");
  REQUIRE(back->job);
  CHECK(back->job->env.at("API_TOKEN") == "****");
  CHECK(back->job->env.at("BATCH_SIZE") == "4");
  CHECK(back->final_metrics["loss"] == 0.25);
  CHECK(lane::read_file(f.store.root() / "lineage" / "s2.json").find("abc") == std::string::npos);
  CHECK(f.store.all_lineage().size() == 2);
}

TEST_CASE("naming helpers: training snapshot names and secret masking", "[storage][fast]") {
  // 2021-03-05 16:23:42 UTC, the seed's example.
  const int64_t ms = 1614961422000;
  CHECK(training_snapshot_name("pvc-download-tusimple-data-0", "dist-lane-detection-training", ms) ==
        "snap-pvc-download-tusimple-data-0-dist-lane-detection-training-launcher-2021-03-05-16-23-42");
  std::string longname = training_snapshot_name(std::string(200, 'p'), std::string(200, 'j'), ms);
  CHECK(longname.size() <= kMaxSnapshotName);
  CHECK(is_snapshot_name(longname));
  CHECK(is_snapshot_name(default_snapshot_name("data", ms)));

  for (std::string s : {"AWS_SECRET_ACCESS_KEY", "db_password", "HF_TOKEN", "API_KEY", "AZURE_CLIENT_CREDENTIAL"})
    CHECK(is_secret_env_name(s));
  for (std::string s : {"BATCH_SIZE", "PVC_NAME", "ENABLE_SNAPSHOT"}) CHECK_FALSE(is_secret_env_name(s));
}

TEST_CASE("odd file names round trip and a damaged manifest is reported, not trusted", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "tab\there", "t");
  write_text(f.vol / "new\nline", "n");
  write_text(f.vol / "100%-done", "p");
  f.store.create("data", "odd", "", {});
  f.store.restore_to_new_volume("odd", "odd-copy");
  CHECK(test::describe_tree(f.volumes.find("odd-copy")->local_path) == test::describe_tree(f.vol));

  // Truncate the manifest: describe/restore refuse it instead of restoring part of the tree.
  fs::path manifest = f.store.root() / "manifests" / "odd.json";
  std::string text = lane::read_file(manifest);
  ::chmod(manifest.c_str(), 0644);
  write_text(manifest, text.substr(0, text.size() / 2));
  CHECK_THROWS_AS(f.store.restore_to_new_volume("odd", "odd-2"), Error);
  CHECK_FALSE(f.volumes.find("odd-2"));
  CHECK_THROWS_WITH(f.store.verify("odd"), Catch::Contains("damaged"));
}

TEST_CASE("a snapshot whose objects are not all intact in the store is not published", "[storage][fast]") {
  Fixture f;
  fill_sample(f.vol);
  f.store.create("data", "v1", "", {});
  // The object of models/best.pt loses its tail (a damaged store): the next snapshot of the
  // unchanged volume would name it again.
  const std::string digest = sha256_hex("weights-v1");
  const fs::path object = f.store.root() / "objects" / digest.substr(0, 2) / digest.substr(2);
  REQUIRE(fs::exists(object));
  ::chmod(object.c_str(), 0644);
  fs::resize_file(object, 3);
  CHECK_THROWS_WITH(f.store.create("data", "v2", "", {}),
                    Catch::Contains("snapshot 'v2' does not verify and was not published") &&
                        Catch::Contains("models/best.pt: object") && Catch::Contains("has 3 bytes, expected 10"));
  CHECK(f.store.list(std::nullopt).size() == 1);
  CHECK_THROWS(f.store.describe("v2"));
}
