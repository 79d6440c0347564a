// Issue 28, items 6 and 11: the state database is checked when it is opened (an emptied,
// overwritten or damaged state.db stops every command and touches no volume; a newer schema is
// refused), it is backed up, no command deletes a claim directory the state does not own, and
// the state files are private (home 0700, state.db and its backup 0600).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "local_backend/state_db_util.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"

using lane::test::Lanectl;
using lane::test::slurp;
namespace fs = std::filesystem;

namespace {

using lane::test::has;

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// A finished job that wrote "kept" into its claim pvc-keeper-0.
void make_claim_with_data(Lanectl& l) {
  auto s = l.run({"submit", "keeper", "-i", "x", "--pvc", ":1Mi:/data", "--command", "--", "/bin/sh", "-c",
                  "echo kept > /data/file"});
  REQUIRE(s.code == 0);
  REQUIRE(l.wait_status("keeper", {"Succeeded", "Failed"}).value("status", "") == "Succeeded");
}

}  // namespace

TEST_CASE("an emptied state.db stops every command, names the backup and touches no volume", "[local_backend][fast]") {
  Lanectl l;
  make_claim_with_data(l);
  REQUIRE(l.run({"snapshot", "create", "--pvc", "pvc-keeper-0", "--name", "base"}).code == 0);
  const fs::path data = l.home() / "volumes" / "pvc-keeper-0" / "file";
  REQUIRE(slurp(data) == "kept\n");
  REQUIRE(fs::exists(l.home() / "state.db.bak"));
  fs::resize_file(l.home() / "state.db", 0);  // truncate -s 0 state.db

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list"}, {"restore", "base", "--to-pvc", "copy"},
        {"submit", "next", "-i", "x", "--pvc", "pvc-keeper-0:/data", "--command", "--", "/bin/true"},
        {"snapshot", "list"}}) {
    auto r = l.run(args);
    INFO(args[0] << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(has(r.err, (l.home() / "state.db").string() + " is empty (0 bytes)"));
    CHECK(has(r.err, "volumes"));
    CHECK(has(r.err, "cp " + (l.home() / "state.db.bak").string()));
  }
  CHECK(slurp(data) == "kept\n");
  CHECK_FALSE(fs::exists(l.home() / "volumes" / "copy"));
  CHECK(fs::file_size(l.home() / "state.db") == 0);  // nothing wrote a new, empty schema over it

  // A valid SQLite file without the tables (another file copied over it) is refused the same way.
  fs::remove(l.home() / "state.db");
  lane::test::run_sql(l.home() / "state.db", "CREATE TABLE t(x); DROP TABLE t;");
  auto empty = l.run({"list"});
  CHECK(empty.code == 1);
  CHECK(has(empty.err, "is empty (no tables) while LANECTL_HOME holds volumes"));
  CHECK(slurp(data) == "kept\n");

  // The fix the message names brings the state back.
  fs::copy_file(l.home() / "state.db.bak", l.home() / "state.db", fs::copy_options::overwrite_existing);
  auto r = l.run({"snapshot", "list"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "base"));
}

TEST_CASE("an overwritten or damaged state.db is refused naming the file and the fix", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"list"}).code == 0);
  const fs::path db = l.home() / "state.db";
  {
    std::ofstream(db, std::ios::binary | std::ios::trunc) << "this is not a database, but it is not empty either";
  }
  auto r = l.run({"list"});
  CHECK(r.code == 1);
  CHECK(has(r.err, db.string() + " is not an SQLite database"));
  CHECK(has(r.err, "Fix: restore the last backup"));

  // Valid header, damaged pages (a crash of the disk, not of SQLite).
  fs::copy_file(l.home() / "state.db.bak", db, fs::copy_options::overwrite_existing);
  const auto size = fs::file_size(db);
  REQUIRE(size > 8192);
  {
    std::fstream f(db, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(4096);
    for (uintmax_t i = 4096; i < size; ++i) f.put(static_cast<char>(0xA5));
  }
  l.set_env("LANECTL_STATE_BACKUP_SECONDS", "0");  // the backup's quick_check runs at every command
  r = l.run({"list"});
  CHECK(r.code == 1);
  CHECK(has(r.err, db.string() + " is damaged"));
  CHECK(has(r.err, "state.db.bak"));
}

TEST_CASE("a state database of a newer schema version is refused", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"list"}).code == 0);
  lane::test::run_sql(l.home() / "state.db", "PRAGMA user_version = 99");
  auto r = l.run({"list"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "schema version 99"));
}

TEST_CASE("restore keeps a claim directory the state does not list, and removes one a dead writer recorded", "[local_backend][fast]") {
  Lanectl l;
  make_claim_with_data(l);
  REQUIRE(l.run({"snapshot", "create", "--pvc", "pvc-keeper-0", "--name", "base"}).code == 0);
  // Data the state does not own (e.g. a claim created after the backup the state came from).
  fs::create_directories(l.home() / "volumes" / "foreign");
  std::ofstream(l.home() / "volumes" / "foreign" / "precious") << "data";
  // A claim a killed restore published but never registered: recorded in the staging directory.
  fs::create_directories(l.home() / "volumes" / "ghost");
  std::ofstream(l.home() / "volumes" / "ghost" / "half") << "half";
  fs::create_directories(l.home() / "volumes" / ".staging");
  std::ofstream(l.home() / "volumes" / ".staging" / "2147483600-claim-ghost");

  auto r = l.run({"restore", "base", "--to-pvc", "copy"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp(l.home() / "volumes" / "foreign" / "precious") == "data");
  CHECK_FALSE(fs::exists(l.home() / "volumes" / "ghost"));
  CHECK_FALSE(fs::exists(l.home() / "volumes" / ".staging" / "2147483600-claim-ghost"));
  CHECK(slurp(l.home() / "volumes" / "copy" / "file") == "kept\n");

  // A new claim of that name is refused rather than created over the data.
  r = l.run({"restore", "base", "--to-pvc", "foreign"});
  CHECK(r.code != 0);
  CHECK(has(r.err, "state lists no volume 'foreign'"));
  CHECK(slurp(l.home() / "volumes" / "foreign" / "precious") == "data");
}

TEST_CASE("a new LANECTL_HOME is private and an existing home's state files are tightened once", "[local_backend][fast]") {
  Lanectl l;
  const fs::path home = l.home() / "fresh";
  l.set_env("LANECTL_HOME", home.string());
  REQUIRE(l.run({"list"}).code == 0);
  CHECK(mode_of(home) == 0700);
  CHECK(mode_of(home / "state.db") == 0600);
  CHECK(mode_of(home / "state.db.bak") == 0600);

  // A home of an earlier version: world-readable state files.
  REQUIRE(::chmod((home / "state.db").c_str(), 0644) == 0);
  REQUIRE(::chmod((home / "state.db.bak").c_str(), 0644) == 0);
  auto r = l.run({"list"});
  CHECK(r.code == 0);
  CHECK(has(r.err, "note: state.db, state.db.bak in " + home.string() + " could be read by other users"));
  CHECK(mode_of(home / "state.db") == 0600);
  CHECK(mode_of(home / "state.db.bak") == 0600);
  r = l.run({"list"});
  CHECK_FALSE(has(r.err, "note:"));
}
