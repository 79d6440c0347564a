// Issue 28: the store never trusts a path someone else controls. A file swapped for a symlink
// (or a FIFO) while a snapshot runs is refused, never read through; a forged manifest cannot make
// a restore write outside its target; a FIFO in place of an object cannot hang verify or restore;
// one damaged lineage record does not hide the others; the job's metrics are read beneath its
// output root. The job-side races (real jobs, both sandboxes) are in tests/reliability.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"
#include "common/error.h"
#include "dir_volumes.h"
#include "storage/core/lineage_view.h"
#include "storage/local/local_snapshot_store.h"
#include "submit/training/training_snapshot.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using lane::test::TempDir;
using lane::test::write_text;
namespace fs = std::filesystem;

namespace {

const std::string kSecret = "{\"kind\":\"train\",\"stolen\":\"HOST-SECRET-28\"}\n";

// A volume "pvc-src" with a few files and a directory, and a root-only secret outside it.
struct Fixture {
  TempDir tmp{"paths"};
  test::DirVolumes volumes{tmp.path / "volumes"};
  fs::path vol = volumes.create("pvc-src", "1Gi", "", VolumeOrigin::user()).local_path;
  fs::path outside = tmp.path / "outside";
  Fixture() {
    for (int i = 0; i < 5; ++i) write_text(vol / ("a" + std::to_string(i)), "data " + std::to_string(i));
    write_text(vol / "d/x", "inside");
    write_text(vol / "z-victim", "victim");
    write_text(outside / "secret", kSecret);
    ::chmod((outside / "secret").c_str(), 0600);
  }
  // True when some object of the store holds the secret.
  bool secret_stored() const {
    for (const auto& e : fs::recursive_directory_iterator(tmp.path / "snapshots" / "objects"))
      if (e.is_regular_file() && read_file(e.path()).find("HOST-SECRET-28") != std::string::npos) return true;
    return false;
  }
};

// Publishes `m` (re-serialized, so its checksum is right) under the name `name`.
void forge(const fs::path& store_root, local::Manifest m, const std::string& name) {
  m.info.name = name;
  ::unlink((store_root / "index" / (name + ".json")).c_str());
  write_text(store_root / "manifests" / (name + ".json"), local::serialize_manifest(m));
}

}  // namespace

TEST_CASE("a file swapped for a symlink or a FIFO while a snapshot runs is refused, never read through", "[storage][fast]") {
  for (const std::string swap : {"symlink", "fifo"}) {
    INFO(swap);
    Fixture f;
    local::LocalStoreOptions opts;
    opts.after_file = [&](uint64_t n) {
      if (n != 1) return;
      fs::remove(f.vol / "z-victim");
      if (swap == "symlink") fs::create_symlink(f.outside / "secret", f.vol / "z-victim");
      else REQUIRE(::mkfifo((f.vol / "z-victim").c_str(), 0600) == 0);
    };
    local::LocalSnapshotStore store(f.tmp.path / "snapshots", f.volumes, opts);
    ::alarm(20);  // a FIFO opened for reading would block: fail instead of hanging
    CHECK_THROWS_WITH(store.create("pvc-src", "s1", "", {}),
                      Catch::Contains("'z-victim' of volume 'pvc-src'") && Catch::Contains("changed while the snapshot"));
    ::alarm(0);
    CHECK(store.list(std::nullopt).empty());
    CHECK_FALSE(f.secret_stored());
  }
}

TEST_CASE("a forged manifest cannot make restore or revert write outside the target", "[storage][fast]") {
  Fixture f;
  local::LocalSnapshotStore store(f.tmp.path / "snapshots", f.volumes);
  store.create("pvc-src", "s1", "", {});
  local::Manifest m = store.manifest("s1");
  // "d" becomes a symlink to the outside directory; "d/x" is then written through it.
  for (auto& e : m.entries)
    if (e.path == "d") {
      e.kind = local::EntryKind::kSymlink;
      e.target = f.outside.string();
    }
  m.info.content_digest = local::content_digest(m.entries);
  forge(store.root(), m, "forged");
  CHECK_THROWS_WITH(store.restore_to_new_volume("forged", "pvc-new"), Catch::Contains("without following links"));
  CHECK_FALSE(f.volumes.find("pvc-new"));
  CHECK_THROWS(store.revert_in_place("forged", "pvc-src"));
  CHECK_FALSE(fs::exists(f.outside / "x"));
  CHECK(read_file(f.vol / "d/x") == "inside");

  // An entry changed without its content digest (a mode made setuid) is refused, as verify does.
  local::Manifest tampered = store.manifest("s1");
  tampered.entries.back().mode = 04755;
  forge(store.root(), tampered, "tampered");
  CHECK_FALSE(store.verify("tampered").ok());
  CHECK_THROWS_WITH(store.restore_to_new_volume("tampered", "pvc-new"), Catch::Contains("content digest"));
  CHECK_FALSE(f.volumes.find("pvc-new"));
}

TEST_CASE("a FIFO in place of a store object fails verify and restore without hanging", "[storage][fast]") {
  Fixture f;
  local::LocalSnapshotStore store(f.tmp.path / "snapshots", f.volumes);
  store.create("pvc-src", "s1", "", {});
  const local::Manifest m = store.manifest("s1");
  std::string digest;
  for (const auto& e : m.entries)
    if (e.path == "a0") digest = e.digest;
  const fs::path object = f.tmp.path / "snapshots" / "objects" / digest.substr(0, 2) / digest.substr(2);
  REQUIRE(::unlink(object.c_str()) == 0);
  REQUIRE(::mkfifo(object.c_str(), 0600) == 0);
  ::alarm(20);
  VerifyReport report = store.verify("s1");
  REQUIRE(report.damaged.size() == 1);
  CHECK(report.damaged[0].find("not a regular file") != std::string::npos);
  CHECK_THROWS_WITH(store.restore_to_new_volume("s1", "pvc-new"), Catch::Contains("a0: object"));
  ::alarm(0);
  CHECK_FALSE(f.volumes.find("pvc-new"));
}

TEST_CASE("one damaged lineage record is skipped with a warning naming it, the others are still shown", "[storage][fast]") {
  Fixture f;
  local::LocalSnapshotStore store(f.tmp.path / "snapshots", f.volumes);
  store.create("pvc-src", "s1", "job-a", {});
  store.create("pvc-src", "s2", "job-a", {});
  const fs::path bad = f.tmp.path / "snapshots" / "lineage" / "s1.json";
  write_text(bad, "{not json");
  std::ostringstream err;
  struct Capture {
    std::streambuf* old;
    ~Capture() { std::cerr.rdbuf(old); }
  } capture{std::cerr.rdbuf(err.rdbuf())};
  const auto all = store.all_lineage();
  const auto view = lineage_of_snapshot(store, f.volumes, "s2");
  const auto by_job = lineage_of_job(store, f.volumes, "job-a");
  REQUIRE(all.size() == 1);
  CHECK(all[0].snapshot == "s2");
  CHECK(view);
  REQUIRE(by_job.size() == 1);
  CHECK(by_job[0].record.snapshot == "s2");
  CHECK(err.str().find("warning: lineage record '" + bad.string() + "' is unreadable") != std::string::npos);
  CHECK_THROWS_WITH(store.lineage("s1"), Catch::Contains(bad.string()));
}

TEST_CASE("the job's metrics are read beneath its output root: links, '..' and FIFOs are refused", "[storage][fast]") {
  Fixture f;
  submit::TrainingSnapshotRequest req;
  req.output_root = f.vol;
  req.output_dir = "/mnt/out";
  write_text(f.vol / "out/metrics.jsonl", "{\"kind\":\"train\",\"loss\":0.5}\n");
  req.output_beneath = "out";
  CHECK(submit::read_final_metrics(req)["train"]["loss"] == 0.5);
  req.output_beneath = "none";
  CHECK(submit::read_final_metrics(req).empty());

  fs::create_symlink(f.outside / "secret", f.vol / "metrics.jsonl");  // the file a link
  fs::create_directory_symlink(f.outside, f.vol / "linked");          // a directory a link
  REQUIRE(::mkfifo((f.vol / "fifo-out").c_str(), 0700) == 0);
  fs::create_directory(f.vol / "fifo-dir");
  REQUIRE(::mkfifo((f.vol / "fifo-dir/metrics.jsonl").c_str(), 0600) == 0);
  ::alarm(20);
  for (const std::string rel : {"", "linked", "../outside", "fifo-dir"}) {
    INFO(rel);
    req.output_beneath = rel;
    CHECK_THROWS_AS(submit::read_final_metrics(req), Error);
  }
  ::alarm(0);
  // Only the last kMaxMetricsBytes are read: the final values are at the end.
  std::string big(submit::kMaxMetricsBytes + 100, '\n');
  big += "{\"kind\":\"train\",\"loss\":0.25}\n";
  write_text(f.vol / "big/metrics.jsonl", big);
  req.output_beneath = "big";
  CHECK(submit::read_final_metrics(req)["train"]["loss"] == 0.25);
}

TEST_CASE("a file written to while a snapshot copies it fails the snapshot instead of storing a mix", "[storage][fast]") {
  Fixture f;
  write_text(f.vol / "growing", std::string(8 << 20, 'g'));
  local::LocalSnapshotStore store(f.tmp.path / "snapshots", f.volumes);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::ofstream out(f.vol / "growing", std::ios::app);
    while (!stop) out.write("more", 4).flush();
  });
  int refused = 0, created = 0;
  for (int i = 0; i < 10; ++i) {
    try {
      store.create("pvc-src", "s" + std::to_string(i), "", {});
      ++created;
      CHECK(store.verify("s" + std::to_string(i)).ok());  // what was listed is what was read
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("'growing' of volume 'pvc-src' was written to while it was copied") !=
            std::string::npos);
      ++refused;
    }
  }
  stop = true;
  writer.join();
  CHECK(refused > 0);
  CHECK(store.list(std::nullopt).size() == static_cast<size_t>(created));
}
