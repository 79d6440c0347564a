#include "submit/local/state/job_expiry.h"

#include <system_error>

#include "submit/local/state/job_table.h"

namespace lane::submit::local {

namespace {

// Finished jobs whose time to live is over at ?1.
std::string expired() {
  return "FROM jobs WHERE ttl_seconds IS NOT NULL AND " + status_in({JobStatus::kSucceeded, JobStatus::kFailed}) +
         " AND finished_ms > 0 AND finished_ms + ttl_seconds * 1000 <= ?1";
}

}  // namespace

bool any_expired_job(Database& db, int64_t now_ms) {
  auto st = db.prepare("SELECT 1 " + expired() + " LIMIT 1");
  st.bind(1, now_ms);
  return st.step();
}

std::vector<int64_t> delete_expired_jobs(Database& db, int64_t now_ms) {
  std::vector<int64_t> ids;
  auto st = db.prepare("SELECT id " + expired());
  st.bind(1, now_ms);
  while (st.step()) ids.push_back(st.integer(0));
  for (int64_t id : ids) erase_job(db, id);
  return ids;
}

void remove_job_dirs(const Paths& paths, const std::vector<int64_t>& ids) {
  for (int64_t id : ids) {
    std::error_code ec;
    std::filesystem::remove_all(paths.job_dir(id), ec);
  }
}

}  // namespace lane::submit::local
