#pragma once
// The user a local job runs as, and what the sandbox needs of it: the job's passwd and group
// files, and its volumes handed to it. Which uid a project gets is the state's
// (state/project_users.h): under root an unprivileged uid = gid of its own (kJobUidBase + n), so
// that a job is never root and jobs of different projects cannot touch each other's files;
// otherwise the submitting user (bubblewrap).
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace lane::submit::local {

inline constexpr uid_t kJobUidBase = 2000000000;

struct JobUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
};

// Writes minimal passwd and group files (root, nobody, the job's user) into `dir`.
void write_account_files(const std::filesystem::path& dir, const JobUser& user);

// Makes every file of each volume directory owned by the job's user (only entries owned by
// someone else are changed; links are never followed, even when the job swaps a directory for
// one during the walk; files with several hard links are left alone). No-op when not root.
void hand_volumes_to(const std::vector<std::string>& volume_dirs, const JobUser& user);

}  // namespace lane::submit::local
