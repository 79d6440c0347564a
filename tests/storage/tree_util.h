#pragma once
// Helpers for storage tests: temporary directories, file writing, and a full description of a
// directory tree (type, mode, size, mtime, content hash, link target) to compare two trees.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <fmt/format.h>

#include "common/sha256.h"

namespace lane::test {

inline std::filesystem::path make_temp_dir(const std::string& tag) {
  std::random_device rd;
  auto p = std::filesystem::temp_directory_path() / fmt::format("lane-{}-{}-{:08x}", tag, ::getpid(), rd());
  std::filesystem::create_directories(p);
  return p;
}

struct TempDir {
  explicit TempDir(const std::string& tag) : path(make_temp_dir(tag)) {}
  ~TempDir() {
    std::error_code ec;
    // Read-only directories from permission tests must become writable to be removed.
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (!it->is_symlink() && it->is_directory()) ::chmod(it->path().c_str(), 0755);
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path path;
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Sets mtime to `seconds_ago` in the past (so files are outside the store's racy window).
inline void age(const std::filesystem::path& p, int seconds_ago = 3600) {
  struct timespec ts[2];
  ts[0].tv_nsec = UTIME_OMIT;
  ts[0].tv_sec = 0;
  clock_gettime(CLOCK_REALTIME, &ts[1]);
  ts[1].tv_sec -= seconds_ago;
  utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW);
}

inline void age_tree(const std::filesystem::path& root) {
  for (auto& e : std::filesystem::recursive_directory_iterator(root)) age(e.path());
}

// `files` files of `bytes`+ bytes spread over d0..d<dirs-1>/f<i>.bin, content tagged, aged.
inline void fill_volume(const std::filesystem::path& vol, int files, const std::string& tag, int dirs = 5,
                        size_t bytes = 2000) {
  for (int i = 0; i < files; ++i)
    write_text(vol / fmt::format("d{}/f{}.bin", i % dirs, i), fmt::format("{}-{}-", tag, i) + std::string(bytes, 'a' + i % 26));
  age_tree(vol);
}

// waitpid that survives EINTR; the raw status.
inline int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// path -> "type mode size mtime_ns content-sha256|link-target"
inline std::map<std::string, std::string> describe_tree(const std::filesystem::path& root) {
  std::map<std::string, std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(root)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    std::string what;
    if (S_ISDIR(st.st_mode)) {
      what = "dir";
    } else if (S_ISLNK(st.st_mode)) {
      what = "link " + std::filesystem::read_symlink(e.path()).string();
    } else {
      what = "file " + sha256_file_hex(e.path());
    }
    int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
    out[e.path().lexically_relative(root).string()] =
        fmt::format("{} {:o} {} {}", what, st.st_mode & 07777, S_ISDIR(st.st_mode) ? 0 : st.st_size, mtime);
  }
  return out;
}

}  // namespace lane::test
