#pragma once
// Which user a local job runs as. When lanectl runs as root, each project gets its own
// unprivileged uid = gid (kJobUidBase + n, n given out in the order projects first start a
// job, recorded in the state's project_uids table), so that a job is never root and jobs of
// different projects cannot touch each other's files; the project's volumes are handed to that
// uid before each start. Otherwise a job runs as the submitting user (bubblewrap).
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "submit/local/state_store.h"

namespace lane::submit::local {

inline constexpr uid_t kJobUidBase = 2000000000;

struct JobUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
};

// Inside a WriteTransaction: the project's uid, allocated on first use. For a non-root caller:
// the caller itself.
JobUser job_user_for_project(Database& db, const std::string& project);

// Writes minimal passwd and group files (root, nobody, the job's user) into `dir`.
void write_account_files(const std::filesystem::path& dir, const JobUser& user);

// Makes every file of each volume directory owned by the job's user (only entries owned by
// someone else are changed; links are not followed). No-op when not root.
void hand_volumes_to(const std::vector<std::string>& volume_dirs, const JobUser& user);

}  // namespace lane::submit::local
