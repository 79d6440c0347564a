#pragma once
// What the roles of the local backend share: $LANECTL_HOME's paths, the state database, the
// volumes, and the scheduling pass that follows a change.
#include <filesystem>

#include "submit/local/state/local_volumes.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {

struct LocalState {
  // Creates $LANECTL_HOME/jobs and the schema when missing; refuses a damaged or emptied state
  // and keeps its backup (state_files.h).
  explicit LocalState(const std::filesystem::path& home);

  // Runs a pass in its own write transaction (after changes made elsewhere).
  void reschedule();
  // Fails the jobs whose supervisor died without recording an end, then reschedules.
  void check_supervisors();
  // Deletes the finished jobs whose --ttl-after-finish has passed (job_expiry.h).
  void expire_finished_jobs();

  Paths paths;
  Database db;
  LocalVolumes volumes;
};

}  // namespace lane::submit::local
