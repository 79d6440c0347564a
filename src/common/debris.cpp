#include "common/debris.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/beneath.h"
#include "common/error.h"

namespace lane {
namespace fs = std::filesystem;

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::optional<pid_t> pid_after(const std::string& name, const std::string& marker) {
  const size_t at = name.find(marker);
  if (at == std::string::npos) return std::nullopt;
  size_t i = at + marker.size();
  long long pid = 0;
  size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10; ++i, ++digits)
    pid = pid * 10 + (name[i] - '0');
  if (digits == 0 || pid <= 0 || pid > 0x7fffffff) return std::nullopt;
  return static_cast<pid_t>(pid);
}

void remove_dead_staging(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto pid = pid_after("-" + e.path().filename().string(), "-");
    if (pid && !process_alive(*pid)) remove_tree(e.path());
  }
}

// Through descriptors alone (common/beneath.h): the tree may belong to a job that is still
// writing to it (the old tree of a revert, still mounted in a running job), so a directory
// swapped for a symlink must never lead a chmod or an unlink outside it.
namespace {

// The bytes and files of the tree below `dir_fd` (links and other non-directories count as files).
void measure_tree(int dir_fd, ProgressSink& progress) {
  uint64_t bytes = 0, files = 0;
  TreeVisitor v;
  v.other = [&](int, const char*, const struct stat& st) { bytes += static_cast<uint64_t>(st.st_size), ++files; };
  try {
    walk_tree(dir_fd, v);
  } catch (const Error&) {  // what could not be measured is removed unmeasured
  }
  progress.set_total(bytes, files);
}

}  // namespace

void remove_tree(const fs::path& path, ProgressSink* progress) {
  UniqueFd top(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!top.ok()) {
    ::unlink(path.c_str());  // not a directory (or gone): a file or link is removed, never followed
    return;
  }
  if (progress) measure_tree(top.get(), *progress);
  TreeVisitor v;
  // Directories made writable top-down (a restored volume keeps read-only ones), so their
  // entries can be unlinked; then everything removed bottom-up.
  v.enter_dir = [](int fd, const struct stat& st) {
    if ((st.st_mode & 0700) != 0700) ::fchmod(fd, 0700);
  };
  v.denied_dir = [](int parent, const char* name) {  // not root: a mode 0000 directory
    return ::fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) == 0;
  };
  v.other = [progress](int parent, const char* name, const struct stat& st) {
    if (::unlinkat(parent, name, 0) == 0 && progress) progress->advance(static_cast<uint64_t>(st.st_size), 1);
  };
  v.leave_dir = [](int parent, const char* name) { ::unlinkat(parent, name, AT_REMOVEDIR); };
  // A writer still adding entries can make a pass miss some; a few passes, then give up.
  for (int pass = 0; pass < 3; ++pass) {
    try {
      walk_tree(top.get(), v);
    } catch (const Error&) {
      return;
    }
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return;
  }
}

}  // namespace lane
