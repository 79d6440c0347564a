#include "storage/core/disk_usage.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <set>
#include <utility>

#include "common/beneath.h"
#include "storage/core/snapshots.h"

namespace lane::storage {
namespace fs = std::filesystem;

// Through descriptors (common/beneath.h): the directory is the job's, and a link it swaps in
// while the walk runs is measured as a link, never followed.
DiskUsage measure_directory(const fs::path& dir, uint64_t max_entries) {
  DiskUsage usage;
  const UniqueFd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.get() < 0) {
    usage.complete = errno == ENOENT || errno == ENOTDIR || errno == ELOOP;  // missing or not a directory: 0 bytes
    return usage;
  }
  std::set<std::pair<dev_t, ino_t>> linked;  // files with several links, counted once
  bool at_root = true;
  auto count = [&](const struct stat& st) {
    ++usage.entries;
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && !linked.insert({st.st_dev, st.st_ino}).second) return;
    usage.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  };
  TreeVisitor v;
  v.enter_dir = [&](int, const struct stat& st) {
    if (!std::exchange(at_root, false)) count(st);
  };
  v.other = [&](int, const char*, const struct stat& st) { count(st); };
  v.denied_dir = [&](int, const char*) {
    usage.complete = false;  // an unreadable directory is not measured
    return false;
  };
  v.stop = [&] {
    if (usage.entries < max_entries) return false;
    usage.complete = false;
    return true;
  };
  if (walk_tree(root.get(), v).too_deep > 0) usage.complete = false;
  return usage;
}

std::string format_usage(const DiskUsage& usage) {
  return (usage.complete ? "" : ">= ") + format_bytes(usage.bytes);
}

}  // namespace lane::storage
