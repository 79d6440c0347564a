#include "submit/local/job_user.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

JobUser job_user_for_project(Database& db, const std::string& project) {
  if (geteuid() != 0) {
    JobUser self{geteuid(), getegid(), "user"};
    if (const passwd* pw = getpwuid(self.uid)) self.name = pw->pw_name;
    return self;
  }
  auto find = db.prepare("SELECT uid FROM project_uids WHERE project = ?1");
  find.bind(1, project);
  int64_t uid = 0;
  if (find.step()) {
    uid = find.integer(0);
  } else {
    auto next = db.prepare("SELECT COALESCE(MAX(uid) + 1, ?1) FROM project_uids");
    next.bind(1, static_cast<int64_t>(kJobUidBase));
    next.step();
    uid = next.integer(0);
    db.prepare("INSERT INTO project_uids(project, uid) VALUES(?1, ?2)").bind(1, project).bind(2, uid).run();
  }
  return JobUser{static_cast<uid_t>(uid), static_cast<gid_t>(uid), ("job-" + project).substr(0, 32)};
}

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
