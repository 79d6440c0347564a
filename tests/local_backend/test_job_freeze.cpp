// hold_volume_writers (job_freeze.h) on a cgroup v1 layout of its own: which writers of a volume
// a snapshot must freeze, may pass over (no process yet), or must refuse. The job's supervisor
// is this process (alive, by pid and start time); its groups are directories the test makes.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.h"
#include "submit/local/job_freeze.h"
#include "submit/local/runtime/job_cgroup.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/state/job_table.h"
#include "support/skip_case.h"

namespace fs = std::filesystem;
using namespace lane::submit;
using namespace lane::submit::local;

namespace {

struct FreezeFixture {
  FreezeFixture() : dir(make_dir()), db(dir / "state.db") {
    ensure_schema(db);
    for (const char* controller : {"memory", "cpu", "pids", "freezer"}) write(root() / controller / "cgroup.procs", "");
    JobSpec spec;
    spec.name = "writer";
    spec.project = "team-a";
    spec.image = "busybox";
    PvcMount mount;
    mount.claim = "vol";
    mount.mount_path = "/data";
    spec.pvcs.push_back(mount);
    id = insert_job(db, spec, 1000);
    const int attempt = start_job(db, id, {{"node-a", {}, 0.0}}, 2000);
    record_supervisor(db, id, attempt, getpid(), process_start_time(getpid()));
    options.paths.home = dir / "home";
    options.cgroup_root = root().string();
  }
  ~FreezeFixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  static fs::path make_dir() {
    std::string tmpl = (fs::temp_directory_path() / "lane-job-freeze-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    return tmpl;
  }
  static void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

  fs::path root() const { return dir / "cgroup"; }
  // The job's group under `controller`, as its supervisor names it, holding `procs`.
  void group(const char* controller, const std::string& procs) const {
    write(root() / controller / "lanectl" / job_cgroup_name(getpid(), id) / "cgroup.procs", procs);
  }

  fs::path dir;
  Database db;
  int64_t id = 0;
  FreezeOptions options;
};

}  // namespace

TEST_CASE("a snapshot passes over a writer whose cgroups are still being made, and refuses one with processes and no freezer", "[local_backend][fast]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("lanectl freezes jobs only as root");
  }
  FreezeFixture f;
  // On cgroup v1 the supervisor makes the job's groups one by one, the freezer last, before any
  // process joins: a memory group without a freezer group has no process to freeze yet.
  f.group("memory", "");
  f.group("cpu", "");
  auto hold = hold_volume_writers(f.db, "vol", f.options);
  std::map<std::string, std::string> metadata;
  hold->annotate(metadata);
  CHECK(metadata.empty());
  CHECK_NOTHROW(hold->release());

  // The job started while the snapshot read the volume: it was not held, so nothing is taken.
  hold = hold_volume_writers(f.db, "vol", f.options);
  f.group("freezer", "4242\n");
  f.group("memory", "4242\n");
  CHECK_THROWS_WITH(hold->release(), Catch::Contains("job 'team-a/writer' started writing to volume 'vol' while the "
                                                     "snapshot read it"));
  hold.reset();

  // Processes in its groups, but no freezer group (a job started by an older lanectl): refused.
  fs::remove_all(f.root() / "freezer" / "lanectl");
  CHECK_THROWS_WITH(hold_volume_writers(f.db, "vol", f.options),
                    Catch::Contains("job 'team-a/writer' is Running and writes to it, and lanectl cannot freeze it: "
                                    "its cgroup has no freezer"));
  // Unless an unfrozen snapshot is asked for, which says so.
  f.options.no_freeze = true;
  hold = hold_volume_writers(f.db, "vol", f.options);
  metadata.clear();
  hold->annotate(metadata);
  CHECK(metadata["pointInTime"].find("team-a/writer not frozen: its cgroup has no freezer") != std::string::npos);
}
