#pragma once
// A small RAII layer over SQLite for the local backend's state: WAL mode, a long busy
// timeout, and write transactions that start with BEGIN IMMEDIATE so that concurrent
// lanectl processes serialise on the write lock instead of failing half way.
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "common/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace lane::submit::local {

// Where the backup of the state file `db` is kept (state_files.h): DB.bak.
std::filesystem::path state_backup_path(const std::filesystem::path& db);
// The error for a state file that cannot be trusted (damaged, emptied): names the file, the
// `problem` and the fix (restore the backup, or start a new home). No command runs on it.
Error untrusted_state_error(const std::filesystem::path& db, const std::string& problem);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind_null(int index);
  bool step();  // true while a row is available
  void run();   // step to completion

  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  explicit Database(const std::filesystem::path& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  // exec, retried while SQLite answers SQLITE_BUSY without waiting (a journal-mode switch), for
  // at most `patience`.
  void exec_retrying_busy(const std::string& sql, std::chrono::milliseconds patience);
  Statement prepare(const std::string& sql) { return Statement(db_, sql); }
  int64_t last_insert_id() const;
  int64_t changes() const;  // rows the last INSERT, UPDATE or DELETE changed
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back if destroyed without commit().
class WriteTransaction {
 public:
  explicit WriteTransaction(Database& db);
  ~WriteTransaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

// BEGIN (deferred) ... COMMIT: one consistent snapshot for a multi-statement read.
class ReadTransaction {
 public:
  explicit ReadTransaction(Database& db);
  ~ReadTransaction();

 private:
  Database& db_;
};

}  // namespace lane::submit::local
