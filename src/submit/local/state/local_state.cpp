#include "submit/local/state/local_state.h"

#include "common/clock.h"
#include "submit/local/state/job_expiry.h"
#include "submit/local/state/scheduling_pass.h"
#include "submit/local/state/state_files.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

LocalState::LocalState(const fs::path& home) : paths(open_home(home)), db(paths.db()), volumes(db, paths) {
  check_state_schema(db, paths);
  refresh_state_backup(db, paths);
}

void LocalState::check_supervisors() {
  if (!any_lost_supervisor(db)) return;
  PassEffects effects;
  {
    WriteTransaction tx(db);
    if (fail_jobs_with_lost_supervisors(db)) effects = run_scheduling_pass(db, paths);
    tx.commit();
  }
  terminate_supervisors(effects);
}

void LocalState::expire_finished_jobs() {
  const int64_t now = now_unix_ms();
  if (!any_expired_job(db, now)) return;
  std::vector<int64_t> ids;
  {
    WriteTransaction tx(db);
    ids = delete_expired_jobs(db, now);
    tx.commit();
  }
  remove_job_dirs(paths, ids);
}

void LocalState::reschedule() {
  PassEffects effects;
  {
    WriteTransaction tx(db);
    effects = run_scheduling_pass(db, paths);
    tx.commit();
  }
  terminate_supervisors(effects);
}

}  // namespace lane::submit::local
