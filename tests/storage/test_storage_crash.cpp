// Failure cases of the local snapshot store: a snapshot killed half way (SIGKILL), a full disk
// (a real tiny tmpfs when mounting is permitted, else an injected ENOSPC), and several
// processes creating and deleting snapshots that share objects at the same time.
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "dir_volumes.h"
#include "storage/local/local_snapshot_store.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using lane::test::TempDir;
using lane::test::write_text;
namespace fs = std::filesystem;

namespace {

void fill(const fs::path& vol, int files, const std::string& tag) { test::fill_volume(vol, files, tag); }
using test::wait_child;

}  // namespace

TEST_CASE("a snapshot killed half way leaves no snapshot, an untouched volume, and collectable orphans", "[storage][fast]") {
  TempDir tmp("crash");
  test::DirVolumes volumes(tmp.path / "volumes");
  fs::path vol = volumes.create("data", "", "", lane::storage::VolumeOrigin::user()).local_path;
  fill(vol, 40, "x");
  auto before = test::describe_tree(vol);

  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Child: pause for good after 20 of 40 files, so the parent can SIGKILL it mid-snapshot.
    local::LocalStoreOptions opts;
    opts.after_file = [&](uint64_t done) {
      if (done == 20) {
        char c = 'r';
        (void)!::write(ready[1], &c, 1);
        for (;;) ::pause();
      }
    };
    local::LocalSnapshotStore store(tmp.path / "snapshots", volumes, opts);
    try {
      store.create("data", "interrupted", "", {});
    } catch (...) {
    }
    ::_exit(3);  // not reached when killed
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::kill(pid, SIGKILL);
  int status = wait_child(pid);
  CHECK(WIFSIGNALED(status));
  ::close(ready[0]);
  ::close(ready[1]);

  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  CHECK(store.list(std::nullopt).empty());
  CHECK_THROWS_AS(store.describe("interrupted"), Error);
  CHECK(test::describe_tree(vol) == before);
  CHECK(store.object_count() >= 19);  // the orphans the killed process stored

  // The name is free and the next snapshot succeeds and verifies.
  SnapshotInfo s = store.create("data", "interrupted", "", {});
  CHECK(s.file_count == 40);
  CHECK(store.verify("interrupted").ok());
  CHECK(store.object_count() == 40);
  local::SweepResult gc = store.collect_garbage();
  CHECK(gc.objects_removed == 0);  // every orphan was a file the new snapshot needs
  CHECK(store.object_count() == 40);
}

TEST_CASE("orphans of a killed snapshot that nothing uses are removed by the next delete", "[storage][fast]") {
  TempDir tmp("orphan");
  test::DirVolumes volumes(tmp.path / "volumes");
  fs::path vol = volumes.create("data", "", "", lane::storage::VolumeOrigin::user()).local_path;
  fill(vol, 10, "y");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    local::LocalStoreOptions opts;
    opts.after_file = [](uint64_t done) {
      if (done == 5) ::raise(SIGKILL);
    };
    local::LocalSnapshotStore store(tmp.path / "snapshots", volumes, opts);
    store.create("data", "killed", "", {});
    ::_exit(3);
  }
  CHECK(WIFSIGNALED(wait_child(pid)));
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  CHECK(store.object_count() == 5);
  fs::remove_all(vol);
  fs::create_directories(vol);
  write_text(vol / "other.txt", "other");
  store.create("data", "keep", "", {});
  store.create("data", "drop", "", {});
  store.remove("drop");  // the sweep also collects the 5 orphans
  CHECK(store.object_count() == 1);
  CHECK(store.verify("keep").ok());
}

TEST_CASE("a full disk fails the snapshot without leaving a partial one", "[storage][fast]") {
  TempDir tmp("enospc");
  test::DirVolumes volumes(tmp.path / "volumes");
  fs::path vol = volumes.create("data", "", "", lane::storage::VolumeOrigin::user()).local_path;
  fill(vol, 10, "z");
  write_text(vol / "large.bin", std::string(1 << 20, 'L'));  // does not fit in 512 KiB
  auto before = test::describe_tree(vol);

  const fs::path store_root = tmp.path / "small-fs";
  fs::create_directories(store_root);
  const bool real_tmpfs = ::mount("tmpfs", store_root.c_str(), "tmpfs", 0, "size=512k") == 0;
  local::LocalStoreOptions opts;
  if (!real_tmpfs) {
    WARN("mounting a tmpfs is not permitted here (" << std::strerror(errno)
                                                     << "); injecting ENOSPC after 5 files instead");
    opts.after_file = [](uint64_t done) {
      if (done == 5) throw Error("cannot write object: No space left on device (injected)");
    };
  }
  {
    local::LocalSnapshotStore store(store_root, volumes, opts);
    try {
      store.create("data", "too-big", "", {});
      FAIL("the snapshot should not fit");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("No space left on device") != std::string::npos);
    }
    CHECK(store.list(std::nullopt).empty());
    CHECK(test::describe_tree(vol) == before);

    // Once the volume fits, the next snapshot works and the failed one's leftovers go.
    fs::remove(vol / "large.bin");
    store.create("data", "fits", "", {});
    store.collect_garbage();
    CHECK(store.verify("fits").ok());
    CHECK(store.object_count() == 10);
    CHECK(fs::is_empty(store_root / "objects" / "tmp"));
  }
  if (real_tmpfs) ::umount(store_root.c_str());
}

TEST_CASE("concurrent create and delete from several processes never lose a shared object", "[storage][fast]") {
  TempDir tmp("concurrent");
  constexpr int kProcs = 4, kRounds = 6;
  // Each process snapshots its own volume; all volumes share most files, so every process's
  // deletes sweep objects that the others' snapshots (finished or in progress) also use.
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 0;
      try {
        test::DirVolumes volumes(tmp.path / fmt::format("volumes-{}", p));
        fs::path vol = volumes.create("data", "", "", lane::storage::VolumeOrigin::user()).local_path;
        fill(vol, 30, "shared");
        local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
        for (int r = 0; r < kRounds; ++r) {
          write_text(vol / "own.txt", fmt::format("proc {} round {}", p, r));
          store.create("data", fmt::format("p{}-r{}", p, r), "", {});
          if (r > 0) store.remove(fmt::format("p{}-r{}", p, r - 1));
          if (!store.verify(fmt::format("p{}-r{}", p, r)).ok()) rc = 1;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", p, e.what());
        rc = 2;
      }
      ::_exit(rc);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = wait_child(pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  test::DirVolumes volumes(tmp.path / "volumes-check");
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  auto snaps = store.list(std::nullopt);
  REQUIRE(snaps.size() == kProcs);  // the last round of each process
  for (const auto& s : snaps) CHECK(store.verify(s.name).ok());
  CHECK(store.object_count() == 30 + kProcs);  // shared files once, one own.txt per process
}
