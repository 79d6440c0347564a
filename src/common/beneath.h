#pragma once
// File operations on a tree someone else controls (a job's volume, a job's root): everything is
// done through descriptors opened beneath a trusted directory, never following a symlink, never
// leaving it through "..", never through a /proc magic link. A path is resolved once, by the
// kernel, at open time; what is done afterwards is done to that descriptor, so swapping a file
// or directory for a symlink between a check and a use changes nothing.
//
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) where the kernel has it
// (Linux 5.6+); otherwise the same refusals by a walk opening one component at a time with
// openat(O_NOFOLLOW) (detected once, at the first call).
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

namespace lane {

// Owns one descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  int release();

 private:
  int fd_ = -1;
};

// Opens the trusted directory `path` itself (its last component must not be a symlink). Throws
// lane::Error naming it.
UniqueFd open_trusted_dir(const std::string& path);

// Opens `rel` ('/'-separated; "" or "." is the root itself) beneath the directory `root_fd` with
// `flags` (O_CLOEXEC and O_NOFOLLOW are added). A symlink in any component, a ".." or absolute
// path, a magic link: refused (errno ELOOP, EXDEV). Returns -1 with errno set on failure.
UniqueFd open_beneath(int root_fd, const std::string& rel, int flags, mode_t mode = 0);

// The component walk open_beneath falls back to without openat2 (exposed so tests cover it).
UniqueFd open_beneath_by_walk(int root_fd, const std::string& rel, int flags, mode_t mode = 0);

// Whether this kernel has openat2 (what open_beneath uses).
bool have_openat2();

// The directories holding entries beneath a root, opened as open_beneath does, for the *at
// calls (mkdirat, fchownat, ...) on each entry. Keeps the last one open: entries of one
// directory mostly come together.
class ParentDirs {
 public:
  explicit ParentDirs(int root_fd) : root_(root_fd) {}
  // The directory holding `rel` (rel's last component goes to `leaf`). Throws lane::Error
  // naming rel when it cannot be opened without following a link.
  int of(const std::string& rel, std::string& leaf);

 private:
  int root_;
  std::string parent_;
  UniqueFd fd_;
};

// Opens `rel` beneath root_fd for reading, refusing anything but a regular file (a FIFO is
// refused without blocking: opened O_NONBLOCK, then fstat). Throws lane::Error naming `what`.
UniqueFd open_regular_beneath(int root_fd, const std::string& rel, const std::string& what,
                              struct stat* st = nullptr);

// The last `max_bytes` of the regular file open on `fd` (all of it when smaller); `truncated`
// tells whether bytes before them were left out. Throws lane::Error naming `what`.
std::string read_tail(int fd, uint64_t max_bytes, const std::string& what, bool* truncated = nullptr);

// Visits the tree below the open directory `dir_fd` through descriptors alone: each entry is
// fstatat'ed without following links; each directory is opened with openat(O_NOFOLLOW) from
// its parent's descriptor (an entry swapped for a symlink in between is then visited as a
// non-directory). Directories deeper than `max_depth` are left alone (`too_deep` counts them).
struct TreeVisitor {
  // A directory just opened (the root included), with its own fstat.
  std::function<void(int fd, const struct stat& st)> enter_dir;
  // An entry that is not a directory, named by its parent's descriptor and its name.
  std::function<void(int parent_fd, const char* name, const struct stat& st)> other;
  // After a directory's contents were visited (not called for the root).
  std::function<void(int parent_fd, const char* name)> leave_dir;
  // A directory that could not be opened (EACCES, e.g. mode 0000 for a non-root caller): return
  // true to have it opened once more (after making it readable).
  std::function<bool(int parent_fd, const char* name)> denied_dir;
  // Asked before each entry: true ends the whole walk there (a bounded walk).
  std::function<bool()> stop;
};
struct WalkResult {
  uint64_t too_deep = 0;
};
WalkResult walk_tree(int dir_fd, const TreeVisitor& visitor, int max_depth = 256);

}  // namespace lane
