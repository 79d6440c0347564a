#include "storage/core/disk_usage.h"

#include <sys/stat.h>

#include <set>
#include <utility>

#include "storage/core/snapshots.h"

namespace lane::storage {
namespace fs = std::filesystem;

DiskUsage measure_directory(const fs::path& dir, uint64_t max_entries) {
  DiskUsage usage;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return usage;
  std::set<std::pair<dev_t, ino_t>> linked;  // files with several links, counted once
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) usage.complete = false;
  for (; !ec && it != end; it.increment(ec)) {
    if (usage.entries >= max_entries) {
      usage.complete = false;
      break;
    }
    ++usage.entries;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) {
      usage.complete = false;
      continue;
    }
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && !linked.insert({st.st_dev, st.st_ino}).second) continue;
    usage.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  if (ec) usage.complete = false;
  return usage;
}

std::string format_usage(const DiskUsage& usage) {
  return (usage.complete ? "" : ">= ") + format_bytes(usage.bytes);
}

}  // namespace lane::storage
