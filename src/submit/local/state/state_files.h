#pragma once
// Guarding $LANECTL_HOME/state.db: private file modes, refusing a state that is damaged or was
// emptied under a home that holds volumes, jobs or snapshots (every command stops before it
// touches a volume), a schema version, and an hourly verified backup (state.db.bak).
// docs/local-backend.md#state.
#include <filesystem>

#include "submit/local/state/sqlite_db.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {

// The schema this version writes (PRAGMA user_version); 0 is a state of an earlier version.
inline constexpr int kStateSchemaVersion = 1;

// Creates the home (0700 when new) and its jobs directory; creates state.db 0600 when missing
// and tightens the modes of an existing home's state files to 0600 (a note on stderr when it
// did). Then the checks that need no SQLite: a state file that is empty, shorter than its
// header says, or not SQLite is refused (lane::Error naming the file, the problem and the fix).
Paths open_home(const std::filesystem::path& home);

// After SQLite opened the file: a state without tables while the home holds data is refused;
// one of a newer schema is refused; otherwise creates or migrates the schema (ensure_schema).
void check_state_schema(Database& db, const Paths& paths);

// Refreshes state.db.bak when it is missing or older than LANECTL_STATE_BACKUP_SECONDS
// (default 3600): PRAGMA quick_check first (a damaged state is refused, never backed up), then
// SQLite's online backup into a 0600 temporary file, fsync, rename over state.db.bak.
void refresh_state_backup(Database& db, const Paths& paths);

}  // namespace lane::submit::local
