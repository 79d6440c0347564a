#pragma once
// Writes a state database as an earlier lanectl version left it, for the migration tests.
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace lane::test {

// Runs `sql` (several statements) on the SQLite file `db`, creating it when missing.
inline void run_sql(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
  const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(handle);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace lane::test
