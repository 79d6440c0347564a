#pragma once
// Space kept for the state when the disk fills up (docs/reliability.md, "A full disk"): a
// preallocated file, $LANECTL_HOME/state.reserve, that a supervisor deletes when the file system
// holding LANECTL_HOME is full, so that the job's end can still be recorded and `list`, `logs`
// and `delete` still work. The next supervisor that starts with enough free space creates it again.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>

namespace lane::submit::local {

inline constexpr uint64_t kStateReserveBytes = 32ull << 20;
// Below this much available space the file system counts as full.
inline constexpr uint64_t kFullBelowBytes = 1ull << 20;

class StateReserve {
 public:
  explicit StateReserve(const std::filesystem::path& home) : home_(home) {}
  const std::filesystem::path& home() const { return home_; }
  std::filesystem::path path() const { return home_ / "state.reserve"; }
  // Creates the reserve (fully allocated) when it is missing and at least twice its size is free.
  void ensure() const;
  // Deletes the reserve; true when there was one.
  bool release() const;
  // True when the file system of LANECTL_HOME has less than kFullBelowBytes available.
  bool file_system_full() const;
  // True when `path` lies on the file system of LANECTL_HOME.
  bool on_same_file_system(const std::filesystem::path& path) const;

 private:
  std::filesystem::path home_;
};

}  // namespace lane::submit::local
