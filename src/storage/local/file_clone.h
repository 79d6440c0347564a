#pragma once
// Copying file data the cheapest way the file system allows: a reflink (ioctl FICLONE, a
// copy-on-write clone sharing the source's extents) where supported, else a byte copy.
// Support is detected at run time on the first attempt and remembered per CloneMode.
#include <atomic>
#include <cstdint>
#include <string>

namespace lane::storage::local {

class CloneMode {
 public:
  // LANECTL_SNAPSHOT_REFLINK=never forces copies (benchmarks compare both paths).
  CloneMode();
  bool reflink_possible() const { return reflink_ok_.load(); }
  // Clones src_fd's data into dst_fd (an empty file). Returns true when reflinked. Throws
  // lane::Error on failure naming `what`.
  bool clone_or_copy(int src_fd, int dst_fd, const std::string& what);
  // Only the reflink: true when done; false (nothing written) when the file system refuses.
  bool try_reflink(int src_fd, int dst_fd, const std::string& what);

 private:
  std::atomic<bool> reflink_ok_{true};
};

// Writes all of buf to fd, retrying on EINTR/short writes; throws lane::Error naming `what`.
void write_all(int fd, const void* buf, size_t size, const std::string& what);

// Does this file system support FICLONE between two files in `dir`? (Creates and removes two
// small probe files.) Used by benchmarks and docs; the store itself detects lazily.
bool probe_reflink(const std::string& dir);

}  // namespace lane::storage::local
