// lanectl volume list|describe|delete and list volumes on the local backend, the "in use"
// refusals of `volume delete` and `restore --in-place` (issue 28 §10, issue 31 §4), and the named
// claim a job creates as runai does (--pvc NAME:PATH for a claim that does not exist yet).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "storage_cli_util.h"
#include "support/text_has.h"
#include "test_paths.h"
#include "tree_util.h"

namespace fs = std::filesystem;

using lane::test::lanectl;
using Run = lane::test::CliRun;

namespace {

bool wait_for(const fs::path& home, const std::string& job, const std::string& status) {
  for (int i = 0; i < 150; ++i) {
    auto r = lanectl(home, "describe job " + job + " -o json");
    if (r.code == 0 && nlohmann::json::parse(r.out).value("status", "") == status) return true;
    std::system("sleep 0.2");
  }
  return false;
}

using lane::test::has;

}  // namespace

TEST_CASE("volume list, describe and delete on the local backend, delete refused while a job uses it",
          "[storage][fast]") {
  lane::test::TempDir home("volumes");
  REQUIRE(lanectl(home.path, "submit fill -i ubuntu --pvc :1Gi:/mnt --command -- "
                             "sh -c 'head -c 300000 /dev/urandom > /mnt/a'").code == 0);
  REQUIRE(wait_for(home.path, "fill", "Succeeded"));

  Run l = lanectl(home.path, "volume list");
  INFO(l.out);
  REQUIRE(l.code == 0);
  CHECK(has(l.out, "NAME"));
  CHECK(has(l.out, "pvc-fill-0"));
  CHECK(has(l.out, "job default/fill"));
  CHECK(has(l.out, "fill (Succeeded)"));
  CHECK(lanectl(home.path, "list volumes").out == l.out);
  auto doc = nlohmann::json::parse(lanectl(home.path, "volume list -o json").out);
  REQUIRE(doc["items"].size() == 1);
  const auto& v = doc["items"][0];
  CHECK(v["size"] == "1Gi");
  CHECK(v["project"] == "default");
  CHECK(v["thin"] == true);
  CHECK(v["origin"] == "job/default/fill");
  CHECK(v["usedBytes"].get<int64_t>() >= int64_t{300000});
  CHECK(v["usedComplete"] == true);
  CHECK(v["usedBy"][0]["job"] == "fill");

  Run d = lanectl(home.path, "volume describe pvc-fill-0");
  INFO(d.out);
  REQUIRE(d.code == 0);
  CHECK(has(d.out, "Size requested: 1Gi"));
  CHECK(has(d.out, "Thin:           yes"));
  CHECK(has(d.out, "Used by:        fill (Succeeded)"));
  CHECK(lanectl(home.path, "volume describe").code == 2);
  CHECK(lanectl(home.path, "volume describe nope").code == 1);

  // The message that points to `lanectl volume list` points to a command that exists.
  Run missing = lanectl(home.path, "snapshot create --pvc nope");
  CHECK(missing.code == 1);
  CHECK(has(missing.out, "lanectl volume list"));
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s1").code == 0);
  REQUIRE(lanectl(home.path, "restore s1 --to-pvc copy").code == 0);
  CHECK(has(lanectl(home.path, "volume list").out, "restore of s1"));

  REQUIRE(lanectl(home.path, "submit hold -i ubuntu --pvc pvc-fill-0:/mnt --command -- sleep 60").code == 0);
  REQUIRE(wait_for(home.path, "hold", "Running"));
  Run busy = lanectl(home.path, "volume delete pvc-fill-0");
  INFO(busy.out);
  CHECK(busy.code == 2);
  CHECK(has(busy.out, "job 'hold' of project 'default' is Running"));
  CHECK(has(busy.out, "lanectl delete hold -p default"));
  CHECK(fs::exists(home.path / "volumes" / "pvc-fill-0" / "a"));

  REQUIRE(lanectl(home.path, "delete hold").code == 0);
  Run del = lanectl(home.path, "volume delete pvc-fill-0");
  INFO(del.out);
  CHECK(del.code == 0);
  // Not a terminal: one summary line of what was removed on stderr, before the result.
  CHECK(del.out.rfind("volume delete: 293.0 KiB, 1 file", 0) == 0);
  CHECK(has(del.out, " s ("));
  CHECK(del.out.substr(del.out.find('\n') + 1) == "Volume pvc-fill-0 deleted.\n");
  CHECK_FALSE(fs::exists(home.path / "volumes" / "pvc-fill-0"));
  CHECK_FALSE(has(lanectl(home.path, "volume list").out, "pvc-fill-0"));
  CHECK(lanectl(home.path, "volume delete pvc-fill-0").code == 1);
  CHECK(lanectl(home.path, "volume delete copy -p other").code == 2);  // another project's claim
  CHECK(fs::exists(home.path / "volumes" / "copy"));
  Run quiet = lanectl(home.path, "volume delete copy -q");
  CHECK(quiet.code == 0);
  CHECK(quiet.out == "Volume copy deleted.\n");  // --quiet: no progress at all
  CHECK_FALSE(fs::exists(home.path / "volumes" / "copy"));

  // A directory the state does not record is not deleted.
  fs::create_directories(home.path / "volumes" / "stray");
  CHECK(lanectl(home.path, "volume delete stray").code == 1);
  CHECK(fs::exists(home.path / "volumes" / "stray"));
}

TEST_CASE("restore --in-place is refused while a running job mounts the volume, the job file stays",
          "[storage][fast]") {
  lane::test::TempDir home("inplace");
  REQUIRE(lanectl(home.path, "submit fill -i ubuntu --pvc :1Gi:/mnt --command -- sh -c 'echo old > /mnt/a'").code == 0);
  REQUIRE(wait_for(home.path, "fill", "Succeeded"));
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s1").code == 0);
  REQUIRE(lanectl(home.path, "submit writer -i ubuntu --pvc pvc-fill-0:/mnt --command -- "
                             "sh -c 'echo new > /mnt/b; sleep 60'").code == 0);
  REQUIRE(wait_for(home.path, "writer", "Running"));
  const fs::path written = home.path / "volumes" / "pvc-fill-0" / "b";
  for (int i = 0; i < 100 && !fs::exists(written); ++i) std::system("sleep 0.1");
  REQUIRE(fs::exists(written));

  Run r = lanectl(home.path, "restore s1 --in-place --pvc pvc-fill-0 --yes");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "cannot revert volume 'pvc-fill-0' in place: job 'writer' of project 'default' is Running"));
  CHECK(has(r.out, "lanectl delete writer -p default"));
  CHECK(has(r.out, "--to-pvc NEW"));
  CHECK(lane::read_file(written) == "new\n");
  CHECK(lanectl(home.path, "delete writer").code == 0);
  CHECK(lanectl(home.path, "restore s1 --in-place --pvc pvc-fill-0 --yes").code == 0);
  CHECK_FALSE(fs::exists(written));
}

TEST_CASE("a named --pvc NAME:PATH creates the claim when it does not exist, as runai does", "[storage][fast]") {
  lane::test::TempDir home("named");
  Run s = lanectl(home.path, "submit pvc-test -i ubuntu --pvc test:/tmp/pvc1mount --command -- "
                             "sh -c 'echo hi > /tmp/pvc1mount/f'");
  INFO(s.out);
  REQUIRE(s.code == 0);
  REQUIRE(wait_for(home.path, "pvc-test", "Succeeded"));
  CHECK(lane::read_file(home.path / "volumes" / "test" / "f") == "hi\n");
  Run d = lanectl(home.path, "volume describe test");
  INFO(d.out);
  CHECK(has(d.out, "Size requested: 10Gi"));
  CHECK(has(d.out, "Project:        default"));
  CHECK(has(lanectl(home.path, "describe job pvc-test").out, "ClaimCreated"));
}
