#pragma once
// What a directory's files take on disk (`lanectl volume list|describe`'s USED for a volume whose
// data is a local directory), measured like `du -s` but bounded: the walk stops after a number
// of entries, so that listing volumes stays quick whatever they hold.
#include <cstdint>
#include <filesystem>
#include <string>

namespace lane::storage {

struct DiskUsage {
  uint64_t bytes = 0;     // allocated bytes (st_blocks), each hard-linked file once
  uint64_t entries = 0;   // entries visited
  bool complete = true;   // false: the walk stopped at the bound or met an unreadable directory
};

inline constexpr uint64_t kDiskUsageMaxEntries = 100000;

// Walks `dir` without following symbolic links; a missing `dir` measures 0 bytes, complete.
DiskUsage measure_directory(const std::filesystem::path& dir, uint64_t max_entries = kDiskUsageMaxEntries);

// "1.5 GiB", with ">= " in front when the walk was not complete.
std::string format_usage(const DiskUsage& usage);

}  // namespace lane::storage
