#include "submit/local/state/project_users.h"

#include <pwd.h>
#include <unistd.h>

namespace lane::submit::local {

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

}  // namespace lane::submit::local
