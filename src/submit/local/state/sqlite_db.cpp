#include "submit/local/state/sqlite_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

fs::path state_backup_path(const fs::path& db) { return db.string() + ".bak"; }

Error untrusted_state_error(const fs::path& db, const std::string& problem) {
  const fs::path bak = state_backup_path(db);
  std::string fix;
  struct stat st {};
  if (::stat(bak.c_str(), &st) == 0) {
    const long minutes = static_cast<long>(std::difftime(std::time(nullptr), st.st_mtime) / 60);
    fix = fmt::format("restore the last backup (taken {} min ago; what changed since is not in it): "
                      "cp {} {} && rm -f {}-wal {}-shm",
                      minutes, bak.string(), db.string(), db.string(), db.string());
  } else {
    fix = fmt::format("there is no backup ({} is missing): move {} aside and start with an empty one; "
                      "the volumes' data stays in its volumes directory",
                      bak.string(), db.parent_path().string());
  }
  return Error(fmt::format("the local state database {} {}; lanectl stops here so that no volume, job or "
                           "snapshot is lost. Fix: {}",
                           db.string(), problem, fix));
}

namespace {
// A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) is reported as such, with the fix.
[[noreturn]] void fail_with(sqlite3* db, int code, const std::string& what, const std::string& message) {
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
    throw untrusted_state_error(sqlite3_db_filename(db, "main"), "is damaged (" + what + ": " + message + ")");
  throw Error("local state database: " + what + ": " + message);
}
[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  fail_with(db, sqlite3_errcode(db) & 0xff, what, sqlite3_errmsg(db));
}
}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    fail(db, "prepare '" + sql + "'");
}
Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, const std::string& v) {
  sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "step");
}
void Statement::run() {
  while (step()) {
  }
}

std::string Statement::text(int c) const {
  const unsigned char* p = sqlite3_column_text(stmt_, c);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, c)) : "";
}
int64_t Statement::integer(int c) const { return sqlite3_column_int64(stmt_, c); }
double Statement::real(int c) const { return sqlite3_column_double(stmt_, c); }
bool Statement::is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }

Database::Database(const std::filesystem::path& path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                      SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error("cannot open the local state database " + path.string() + ": " + msg +
                "; check LANECTL_HOME");
  }
  // Many lanectl processes and supervisors share the file: wait for the lock, never fail on it.
  sqlite3_busy_timeout(db_, 120000);
  // Switching to (or confirming) WAL can answer SQLITE_BUSY without calling the busy handler,
  // while another process opens or recovers the file: retry it for as long as the handler would.
  exec_retrying_busy("PRAGMA journal_mode=WAL", std::chrono::seconds(120));
  exec("PRAGMA synchronous=NORMAL");
  exec("PRAGMA foreign_keys=ON");
}
Database::~Database() { sqlite3_close(db_); }

void Database::exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : "unknown error";
    sqlite3_free(msg);
    fail_with(db_, sqlite3_errcode(db_) & 0xff, "'" + sql.substr(0, 60) + "'", m);
  }
}
void Database::exec_retrying_busy(const std::string& sql, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  exec(sql);  // once more, to report the error as exec does
}
int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int64_t Database::changes() const { return sqlite3_changes(db_); }

WriteTransaction::WriteTransaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
WriteTransaction::~WriteTransaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void WriteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

ReadTransaction::ReadTransaction(Database& db) : db_(db) { db_.exec("BEGIN"); }
ReadTransaction::~ReadTransaction() { sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr); }

}  // namespace lane::submit::local
