#include "storage/local/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::storage::local {

StoreLock::StoreLock(const std::filesystem::path& lock_file, Mode mode) {
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(fmt::format("cannot open lock '{}': {}", lock_file.string(), std::strerror(errno)));
  int op = mode == Mode::kShared ? LOCK_SH : LOCK_EX;
  while (::flock(fd_, op) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd_);
    throw Error(fmt::format("cannot lock '{}': {}", lock_file.string(), std::strerror(saved)));
  }
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace lane::storage::local
