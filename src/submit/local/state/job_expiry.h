#pragma once
// --ttl-after-finish on the local backend: a finished job (Succeeded or Failed) whose
// ttl_seconds have passed since it finished is deleted, as Kubernetes' TTL controller deletes a
// Job. There is no daemon: the check runs when a lanectl command opens the local backend and
// when a supervisor records a job's end, so a job lives until the first of those after its TTL.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "submit/local/state/state_store.h"

namespace lane::submit::local {

// Deletes the expired jobs' rows and events (call inside a write transaction) and returns their
// ids, whose job directories the caller removes after the commit (remove_job_dirs).
std::vector<int64_t> delete_expired_jobs(Database& db, int64_t now_ms);

// True when some finished job's TTL has passed (a read, to skip the write lock otherwise).
bool any_expired_job(Database& db, int64_t now_ms);

void remove_job_dirs(const Paths& paths, const std::vector<int64_t>& ids);

}  // namespace lane::submit::local
