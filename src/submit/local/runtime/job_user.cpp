#include "submit/local/runtime/job_user.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "common/atomic_file.h"
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

void hand_volumes_to(const std::vector<std::string>& volume_dirs, const JobUser& user) {
  if (geteuid() != 0 || user.uid == 0) return;
  auto give = [&](const fs::path& p) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || (st.st_uid == user.uid && st.st_gid == user.gid)) return;
    if (lchown(p.c_str(), user.uid, user.gid) != 0)
      throw Error(fmt::format("cannot give {} to the job's user {}: {}", p.string(), user.uid, std::strerror(errno)));
  };
  for (const auto& dir : volume_dirs) {
    give(dir);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) give(it->path());
    if (ec) throw Error(fmt::format("cannot walk volume {}: {}", dir, ec.message()));
  }
}

}  // namespace lane::submit::local
