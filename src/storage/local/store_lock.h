#pragma once
// A process-shared lock on the snapshot store (flock on <store>/lock). Creating, restoring and
// verifying hold it shared; deleting (which sweeps unreferenced objects) holds it exclusive,
// so a sweep never sees the objects of a snapshot that is still being written. flock is
// released by the kernel when a process dies, so a SIGKILLed snapshot never wedges the store.
#include <filesystem>

namespace lane::storage::local {

class StoreLock {
 public:
  enum class Mode { kShared, kExclusive };
  StoreLock(const std::filesystem::path& lock_file, Mode mode);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace lane::storage::local
