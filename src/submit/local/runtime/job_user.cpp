#include "submit/local/runtime/job_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/beneath.h"
#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

void write_account_files(const fs::path& dir, const JobUser& user) {
  fs::create_directories(dir);
  std::string passwd = "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                       "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
  std::string group = "root:x:0:\nnogroup:x:65534:\n";
  if (user.uid != 0 && user.uid != 65534) {
    passwd += fmt::format("{}:x:{}:{}:lanectl job:/tmp:/bin/sh\n", user.name, user.uid, user.gid);
    group += fmt::format("{}:x:{}:\n", user.name, user.gid);
  }
  write_file_atomic(dir / "passwd", passwd);
  write_file_atomic(dir / "group", group);
  chmod((dir / "passwd").c_str(), 0644);
  chmod((dir / "group").c_str(), 0644);
}

// Through descriptors only (common/beneath.h): a job of the project may be running on the
// volume and swap a directory for a symlink while it is walked; fchown of an open directory and
// fchownat(AT_SYMLINK_NOFOLLOW) of a name in it can never reach a file outside the volume.
// A regular file with more than one link is left alone: its other name may be anywhere.
void hand_volumes_to(const std::vector<std::string>& volume_dirs, const JobUser& user) {
  if (geteuid() != 0 || user.uid == 0) return;
  auto foreign = [&](const struct stat& st) { return st.st_uid != user.uid || st.st_gid != user.gid; };
  std::string failure;
  TreeVisitor v;
  v.enter_dir = [&](int fd, const struct stat& st) {
    if (foreign(st) && fchown(fd, user.uid, user.gid) != 0 && failure.empty()) failure = std::strerror(errno);
  };
  v.other = [&](int parent, const char* name, const struct stat& st) {
    if (!foreign(st) || (S_ISREG(st.st_mode) && st.st_nlink > 1)) return;
    if (fchownat(parent, name, user.uid, user.gid, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT && failure.empty())
      failure = fmt::format("{}: {}", name, std::strerror(errno));
  };
  for (const auto& dir : volume_dirs) {
    const UniqueFd root = open_trusted_dir(dir);
    walk_tree(root.get(), v);
    if (!failure.empty())
      throw Error(fmt::format("cannot give volume {} to the job's user {}: {}", dir, user.uid, failure));
  }
}

}  // namespace lane::submit::local
