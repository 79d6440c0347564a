#pragma once
// Which user a project's local jobs run as. When lanectl runs as root, each project gets its own
// unprivileged uid = gid, kJobUidBase + n, n given out in the order projects first start a job
// and recorded in the project_uids table. Otherwise a job runs as the submitting user.
#include <string>

#include "submit/local/runtime/job_user.h"
#include "submit/local/state/sqlite_db.h"

namespace lane::submit::local {

// Inside a WriteTransaction: the project's uid, allocated on first use. For a non-root caller:
// the caller itself.
JobUser job_user_for_project(Database& db, const std::string& project);

}  // namespace lane::submit::local
