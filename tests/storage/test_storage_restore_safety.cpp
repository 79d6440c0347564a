// Restore and revert are all-or-nothing (issue 15, items 3, 4 and 9): a restore killed half way
// leaves no volume and the next run removes its staging; damaged objects fail the restore and
// name every damaged path; a job snapshot's lineage is written with the snapshot, so a crash
// cannot leave a snapshot whose job the lineage does not know.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "common/error.h"
#include "dir_volumes.h"
#include "storage/local/local_snapshot_store.h"
#include "submit/training/training_snapshot.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using namespace lane::submit;
using lane::test::TempDir;
using lane::test::write_text;
namespace fs = std::filesystem;

namespace {

void fill(const fs::path& vol, int files, const std::string& tag) { test::fill_volume(vol, files, tag, 4, 3000); }
using test::wait_child;

// Runs `body` in a child whose store SIGKILLs it after `kill_after` restored files.
template <typename Body>
void run_killed_after(test::DirVolumes& volumes, const fs::path& store_root, int kill_after, Body body) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    local::LocalStoreOptions opts;
    int done = 0;
    opts.after_restore_file = [&](const std::string&) {
      if (++done == kill_after) ::raise(SIGKILL);
    };
    local::LocalSnapshotStore store(store_root, volumes, opts);
    try {
      body(store);
    } catch (...) {
    }
    ::_exit(3);
  }
  REQUIRE(WIFSIGNALED(wait_child(pid)));
}

size_t entries_in(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

void corrupt_object_of(local::LocalSnapshotStore& store, const std::string& snap, const std::string& path) {
  for (const auto& e : store.manifest(snap).entries) {
    if (e.path != path) continue;
    const fs::path obj = store.root() / "objects" / e.digest.substr(0, 2) / e.digest.substr(2);
    ::chmod(obj.c_str(), 0644);
    std::fstream f(obj, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7);
    f.put('#');  // one byte changed, size unchanged
    return;
  }
  FAIL("no entry " << path);
}

// A volume "data" with `files` files and a snapshot "s1" of it.
struct Setup {
  TempDir tmp;
  test::DirVolumes volumes{tmp.path / "volumes"};
  fs::path vol = volumes.create("data", "1Gi", "", lane::storage::VolumeOrigin::user()).local_path;
  fs::path store_root = tmp.path / "snapshots";
  Setup(const std::string& tag, int files) : tmp(tag) {
    fill(vol, files, "old");
    local::LocalSnapshotStore store(store_root, volumes);
    store.create("data", "s1", "", {});
  }
};

}  // namespace

TEST_CASE("a restore killed half way leaves no volume, and the next restore removes its staging", "[storage][fast]") {
  Setup f("restore-kill", 40);
  auto& volumes = f.volumes;
  const fs::path& vol = f.vol;
  run_killed_after(volumes, f.store_root, 20,
                   [](local::LocalSnapshotStore& s) { s.restore_to_new_volume("s1", "restored"); });
  // Nothing under the volume's name: the half-filled tree lives only in the hidden staging area.
  CHECK_FALSE(fs::exists(f.tmp.path / "volumes" / "restored"));
  CHECK(entries_in(volumes.staging_dir()) == 1);

  local::LocalSnapshotStore store(f.store_root, volumes);
  store.restore_to_new_volume("s1", "restored");
  CHECK(entries_in(volumes.staging_dir()) == 0);  // the dead process's staging is gone
  CHECK(test::describe_tree(volumes.find("restored")->local_path) == test::describe_tree(vol));
}

TEST_CASE("an in-place revert killed half way leaves the volume as it was, and the next run cleans up", "[storage][fast]") {
  Setup f("revert-kill", 30);
  auto& volumes = f.volumes;
  const fs::path& vol = f.vol;
  fs::remove_all(vol / "d0");
  fill(vol, 10, "new");
  const auto before = test::describe_tree(vol);
  run_killed_after(volumes, f.store_root, 15,
                   [](local::LocalSnapshotStore& s) { s.revert_in_place("s1", "data"); });
  CHECK(test::describe_tree(vol) == before);
  CHECK(entries_in(volumes.staging_dir()) == 1);
  // Nothing hidden next to the volumes either (old reverts left .data.revert-PID there).
  for (const auto& e : fs::directory_iterator(f.tmp.path / "volumes"))
    CHECK((e.path().filename() == "data" || e.path().filename() == ".staging"));

  local::LocalSnapshotStore store(f.store_root, volumes);
  store.revert_in_place("s1", "data");
  CHECK(entries_in(volumes.staging_dir()) == 0);
  CHECK(store.create("data", "s2", "", {}).content_digest == store.describe("s1").content_digest);
}

TEST_CASE("restore hashes what it copies: one changed byte fails both forms, naming the damaged paths", "[storage][fast]") {
  Setup f("restore-damaged", 12);
  auto& volumes = f.volumes;
  const fs::path& vol = f.vol;
  local::LocalSnapshotStore store(f.store_root, volumes);
  corrupt_object_of(store, "s1", "d1/f5.bin");
  corrupt_object_of(store, "s1", "d2/f10.bin");
  REQUIRE_FALSE(store.verify("s1").ok());

  try {
    store.restore_to_new_volume("s1", "copy");
    FAIL("a damaged snapshot was restored");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("d1/f5.bin") != std::string::npos);
    CHECK(msg.find("d2/f10.bin") != std::string::npos);
    CHECK(msg.find("d0/f4.bin") == std::string::npos);  // intact files are not named
    CHECK(msg.find("damaged") != std::string::npos);
  }
  CHECK_FALSE(volumes.find("copy"));
  CHECK_FALSE(fs::exists(f.tmp.path / "volumes" / "copy"));
  CHECK(entries_in(volumes.staging_dir()) == 0);

  write_text(vol / "d1/f5.bin", "changed since");
  const auto before = test::describe_tree(vol);
  try {
    store.revert_in_place("s1", "data");
    FAIL("a damaged snapshot was reverted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("d2/f10.bin") != std::string::npos);
  }
  CHECK(test::describe_tree(vol) == before);
  CHECK(entries_in(volumes.staging_dir()) == 0);
}

namespace {
// A store that dies where the old code wrote a job's lineage (after the snapshot was visible).
class DiesOnRecordLineage : public local::LocalSnapshotStore {
 public:
  using local::LocalSnapshotStore::LocalSnapshotStore;
  void record_lineage(const LineageRecord&) override { ::raise(SIGKILL); }
};
}  // namespace

TEST_CASE("a job's snapshot and its lineage are one record: no snapshot shows a job the lineage lacks", "[storage][fast]") {
  TempDir tmp("lineage-atomic");
  test::DirVolumes volumes(tmp.path / "volumes");
  fs::path vol = volumes.create("pvc-data", "1Gi", "", lane::storage::VolumeOrigin::user()).local_path;
  fill(vol, 5, "x");
  write_text(vol / "out/metrics.jsonl", "{\"kind\":\"val\",\"accuracy\":0.9}\n");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    DiesOnRecordLineage store(tmp.path / "snapshots", volumes);
    TrainingSnapshotRequest req;
    req.pvc = "pvc-data";
    req.job = "train-job";
    req.output_dir = vol / "out";
    std::ostringstream log;
    try {
      snapshot_after_training(store, volumes, req, std::nullopt, log);
    } catch (...) {
    }
    ::_exit(0);
  }
  wait_child(pid);
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  for (const auto& s : store.list(std::nullopt)) {
    INFO(s.name);
    CHECK(s.job == "train-job");
    auto rec = store.lineage(s.name);
    REQUIRE(rec);
    REQUIRE(rec->job);
    CHECK(rec->job->name == "train-job");
    CHECK(rec->final_metrics["val"]["accuracy"] == 0.9);
  }
  CHECK(store.list(std::nullopt).size() == 1);
}
