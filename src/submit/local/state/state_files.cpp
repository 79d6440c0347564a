#include "submit/local/state/state_files.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/atomic_file.h"
#include "common/debris.h"
#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

namespace {

fs::path backup_path(const Paths& p) { return state_backup_path(p.db()); }

// What the home holds that only the state can account for: "" when nothing.
std::string home_contents(const Paths& p) {
  std::error_code ec;
  auto any = [&](const fs::path& dir, bool skip_hidden) {
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (!skip_hidden || e.path().filename().string().front() != '.') return true;
    return false;
  };
  std::vector<std::string> found;
  if (any(p.volumes_dir(), true)) found.push_back("volumes (" + p.volumes_dir().string() + ")");
  if (any(p.home / "jobs", false)) found.push_back("jobs (" + (p.home / "jobs").string() + ")");
  if (any(p.home / "snapshots" / "manifests", false)) found.push_back("snapshots");
  return fmt::format("{}", fmt::join(found, ", "));
}

[[noreturn]] void refuse(const Paths& p, const std::string& problem) {
  throw untrusted_state_error(p.db(), problem);
}

// chmod go-rwx when the file exists and others may read it; true when it did.
bool make_private(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || (st.st_mode & 077) == 0) return false;
  return ::chmod(file.c_str(), st.st_mode & 0700) == 0;
}

void make_home_dirs(const fs::path& home) {
  std::error_code ec;
  if (!fs::exists(home, ec)) {
    if (home.has_parent_path()) fs::create_directories(home.parent_path(), ec);
    if (::mkdir(home.c_str(), 0700) != 0 && errno != EEXIST) ec.assign(errno, std::generic_category());
  }
  if (!ec) fs::create_directories(home / "jobs", ec);
  if (ec) throw Error("cannot create LANECTL_HOME " + home.string() + ": " + ec.message() +
                      "; set LANECTL_HOME to a writable directory");
}

// state.db created 0600 (SQLite gives its -wal and -shm the same mode); an existing home's
// state files tightened, with a note.
void protect_state_files(const Paths& p) {
  const int fd = ::open(p.db().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  std::vector<std::string> tightened;
  for (const char* suffix : {"", "-wal", "-shm", ".bak"}) {
    const fs::path f = p.db().string() + suffix;
    if (make_private(f)) tightened.push_back(f.filename().string());
  }
  if (!tightened.empty())
    std::cerr << fmt::format("note: {} in {} could be read by other users (the state holds the jobs' "
                             "environment); their mode is now 0600\n",
                             fmt::join(tightened, ", "), p.home.string());
}

// True when state.db has no byte and its WAL none either: nothing was ever committed to it, or
// it was emptied.
bool state_file_empty(const Paths& p) {
  std::error_code ec;
  if (fs::file_size(p.db(), ec) != 0 && !ec) return false;
  const auto wal = fs::file_size(p.db().string() + "-wal", ec);
  return ec || wal == 0;
}

// Refused before SQLite opens (and writes) it: a state file that does not start as SQLite's
// does, or one that is empty, with no WAL, under a home that holds data (check_state_schema
// decides the cases with a WAL once SQLite has read it).
void check_header(const Paths& p) {
  std::ifstream in(p.db(), std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  if (in.gcount() == 0) {
    if (!state_file_empty(p)) return;
    const std::string contents = home_contents(p);
    // A new home's first commands race: another one may have committed the schema and started
    // a job (its directory under jobs/) while this one looked. Committed data is in the WAL, or
    // in state.db once checkpointed, so a state still empty after the look had none before it.
    if (!contents.empty() && state_file_empty(p))
      refuse(p, "is empty (0 bytes) while LANECTL_HOME holds " + contents);
    return;
  }
  if (in.gcount() < 16 || std::memcmp(header, "SQLite format 3", 16) != 0)
    refuse(p, "is not an SQLite database (overwritten or damaged)");
}

int64_t single_integer(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  return st.step() ? st.integer(0) : 0;
}

}  // namespace

Paths open_home(const fs::path& home) {
  make_home_dirs(home);
  Paths p{home};
  protect_state_files(p);
  check_header(p);
  return p;
}

void check_state_schema(Database& db, const Paths& p) {
  auto check_version = [&] {
    const int64_t version = single_integer(db, "PRAGMA user_version");
    if (version > kStateSchemaVersion)
      throw Error(fmt::format("the local state database {} has schema version {}; this lanectl knows version {}: "
                              "run the newer lanectl that wrote it",
                              p.db().string(), version, kStateSchemaVersion));
    return version == kStateSchemaVersion;  // created or migrated by this version already
  };
  if (check_version()) return;
  // Decided and done under the write lock: a new home's first commands start at once, and one
  // that read "no tables" before another committed the schema and started a job would take that
  // job's directory for data the state lost. Under the lock no other process commits meanwhile.
  WriteTransaction tx(db);
  if (check_version()) return;
  if (single_integer(db, "SELECT count(*) FROM sqlite_master") == 0) {
    const std::string contents = home_contents(p);
    if (!contents.empty()) refuse(p, "is empty (no tables) while LANECTL_HOME holds " + contents);
  }
  ensure_schema_in_transaction(db);
  db.exec(fmt::format("PRAGMA user_version = {}", kStateSchemaVersion));
  tx.commit();
}

namespace {

void quick_check(Database& db, const Paths& p) {
  auto st = db.prepare("PRAGMA quick_check(3)");
  std::vector<std::string> problems;
  while (st.step())
    if (st.text(0) != "ok") problems.push_back(st.text(0));
  if (!problems.empty()) refuse(p, fmt::format("is damaged (PRAGMA quick_check: {})", fmt::join(problems, "; ")));
}

int backup_interval_seconds() {
  const char* v = std::getenv("LANECTL_STATE_BACKUP_SECONDS");
  if (!v || !*v) return 3600;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0)
    throw UsageError(fmt::format("LANECTL_STATE_BACKUP_SECONDS='{}': expected a number of seconds (0: at "
                                 "every command)", v));
  return static_cast<int>(n);
}

// SQLite's online backup of `db` into `target` (created 0600); false when SQLite failed.
bool copy_database(Database& db, const fs::path& target) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  sqlite3* out = nullptr;
  int rc = sqlite3_open_v2(target.c_str(), &out, SQLITE_OPEN_READWRITE, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_exec(out, "PRAGMA journal_mode=OFF", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_backup* b = sqlite3_backup_init(out, "main", db.handle(), "main");
    rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    const int finished = sqlite3_backup_finish(b);
    if (rc == SQLITE_DONE) rc = finished;
  }
  sqlite3_close(out);
  const int sync_fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = sync_fd >= 0 && ::fsync(sync_fd) == 0;
  if (sync_fd >= 0) ::close(sync_fd);
  return rc == SQLITE_OK && synced;
}

}  // namespace

void refresh_state_backup(Database& db, const Paths& p) {
  const fs::path bak = backup_path(p);
  struct stat st {};
  if (::stat(bak.c_str(), &st) == 0 && std::difftime(std::time(nullptr), st.st_mtime) < backup_interval_seconds())
    return;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p.home, ec)) {  // temporaries of killed backups
    auto pid = pid_after(e.path().filename().string(), "state.db.bak.tmp.");
    if (pid && !lane::process_alive(*pid)) fs::remove(e.path(), ec);
  }
  quick_check(db, p);
  const fs::path tmp = bak.string() + ".tmp." + std::to_string(::getpid());
  if (!copy_database(db, tmp) || ::rename(tmp.c_str(), bak.c_str()) != 0) {
    std::cerr << fmt::format("warning: could not write the state backup {}: {}\n", bak.string(),
                             sqlite3_errmsg(db.handle()));
    fs::remove(tmp, ec);
    return;
  }
  fsync_directory(p.home);
}

}  // namespace lane::submit::local
