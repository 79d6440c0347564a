#include "common/beneath.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace lane {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

UniqueFd open_trusted_dir(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) throw Error(fmt::format("cannot open directory '{}': {}", path, std::strerror(errno)));
  return fd;
}

namespace {

// The components of `rel` into `parts`; false when one is ".." or rel is absolute.
bool split_relative(const std::string& rel, std::vector<std::string>& parts) {
  if (!rel.empty() && rel[0] == '/') return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    std::string part = rel.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") return false;
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

long call_openat2(int root_fd, const char* path, int flags, mode_t mode) {
  struct open_how how {};
  how.flags = static_cast<uint64_t>(flags);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return ::syscall(SYS_openat2, root_fd, path, &how, sizeof how);
}

}  // namespace

bool have_openat2() {
  static const bool available = [] {
    long fd = call_openat2(AT_FDCWD, ".", O_PATH | O_CLOEXEC, 0);
    if (fd >= 0) ::close(static_cast<int>(fd));
    return fd >= 0 || (errno != ENOSYS && errno != EPERM);
  }();
  return available;
}

UniqueFd open_beneath_by_walk(int root_fd, const std::string& rel, int flags, mode_t mode) {
  std::vector<std::string> parts;
  if (!split_relative(rel, parts)) {
    errno = EXDEV;
    return UniqueFd();
  }
  if (parts.empty()) return UniqueFd(::openat(root_fd, ".", flags | O_CLOEXEC, mode));
  UniqueFd cur;
  int at = root_fd;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    cur = UniqueFd(::openat(at, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!cur.ok()) return cur;
    at = cur.get();
  }
  return UniqueFd(::openat(at, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

UniqueFd open_beneath(int root_fd, const std::string& rel, int flags, mode_t mode) {
  if (!have_openat2()) return open_beneath_by_walk(root_fd, rel, flags, mode);
  std::vector<std::string> parts;
  if (!split_relative(rel, parts)) {
    errno = EXDEV;
    return UniqueFd();
  }
  const char* path = rel.empty() ? "." : rel.c_str();
  for (int attempt = 0;; ++attempt) {
    long fd = call_openat2(root_fd, path, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    // EAGAIN: a rename raced the lookup (the kernel could not prove it stayed beneath).
    if (fd >= 0 || errno != EAGAIN || attempt == 8) return UniqueFd(static_cast<int>(fd));
  }
}

int ParentDirs::of(const std::string& rel, std::string& leaf) {
  const size_t slash = rel.rfind('/');
  leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (slash == std::string::npos) return root_;
  const std::string parent = rel.substr(0, slash);
  if (!fd_.ok() || parent != parent_) {
    fd_ = open_beneath(root_, parent, O_RDONLY | O_DIRECTORY);
    parent_ = parent;
    if (!fd_.ok())
      throw Error(fmt::format("cannot open '{}' (the directory of '{}') without following links: {}", parent, rel,
                              std::strerror(errno)));
  }
  return fd_.get();
}

UniqueFd open_regular_beneath(int root_fd, const std::string& rel, const std::string& what, struct stat* st) {
  UniqueFd fd = open_beneath(root_fd, rel, O_RDONLY | O_NONBLOCK);
  if (!fd.ok()) {
    const char* why = errno == ELOOP || errno == EXDEV ? "it is, or lies behind, a symbolic link or '..'"
                                                       : std::strerror(errno);
    throw Error(fmt::format("cannot open {}: {}", what, why));
  }
  struct stat own {};
  struct stat* s = st ? st : &own;
  if (::fstat(fd.get(), s) != 0) throw Error(fmt::format("cannot stat {}: {}", what, std::strerror(errno)));
  if (!S_ISREG(s->st_mode)) throw Error(fmt::format("{} is not a regular file; refusing to read it", what));
  return fd;
}

std::string read_tail(int fd, uint64_t max_bytes, const std::string& what, bool* truncated) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(fmt::format("cannot stat {}: {}", what, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw Error(fmt::format("{} is not a regular file; refusing to read it", what));
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  off_t off = static_cast<off_t>(size > max_bytes ? size - max_bytes : 0);
  if (truncated) *truncated = off > 0;
  std::string out;
  char buf[65536];
  while (out.size() < max_bytes) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buf, max_bytes - out.size()));
    ssize_t n = ::pread(fd, buf, want, off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    off += n;
  }
  return out;
}

namespace {

void walk_dir(int fd, const TreeVisitor& v, int depth, int max_depth, WalkResult& r) {
  struct stat st {};
  if (v.enter_dir && ::fstat(fd, &st) == 0) v.enter_dir(fd, st);
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (dirent* de = ::readdir(dir))
    if (std::strcmp(de->d_name, ".") != 0 && std::strcmp(de->d_name, "..") != 0) names.emplace_back(de->d_name);
  const int dfd = ::dirfd(dir);
  for (const auto& name : names) {
    if (v.stop && v.stop()) break;
    struct stat est {};
    if (::fstatat(dfd, name.c_str(), &est, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    if (S_ISDIR(est.st_mode)) {
      if (depth >= max_depth) {
        ++r.too_deep;
        continue;
      }
      const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
      int child = ::openat(dfd, name.c_str(), flags);
      if (child < 0 && errno == EACCES && v.denied_dir && v.denied_dir(dfd, name.c_str()))
        child = ::openat(dfd, name.c_str(), flags);
      if (child >= 0) {
        walk_dir(child, v, depth + 1, max_depth, r);
        if (v.leave_dir) v.leave_dir(dfd, name.c_str());
        continue;
      }
      // Swapped since the fstatat: visit what is there now, unless it is a directory again.
      if (::fstatat(dfd, name.c_str(), &est, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(est.st_mode)) continue;
    }
    if (v.other) v.other(dfd, name.c_str(), est);
  }
  ::closedir(dir);
}

}  // namespace

WalkResult walk_tree(int dir_fd, const TreeVisitor& visitor, int max_depth) {
  WalkResult r;
  // Reopened, not duplicated: the walk reads the directory from its start with its own offset.
  int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("cannot reopen a directory to walk it: {}", std::strerror(errno)));
  walk_dir(fd, visitor, 0, max_depth, r);
  return r;
}

}  // namespace lane
