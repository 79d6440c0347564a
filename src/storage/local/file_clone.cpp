#include "storage/local/file_clone.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::storage::local {

CloneMode::CloneMode() {
  const char* env = std::getenv("LANECTL_SNAPSHOT_REFLINK");
  if (env && std::string(env) == "never") reflink_ok_ = false;
}

void write_all(int fd, const void* buf, size_t size, const std::string& what) {
  const char* p = static_cast<const char*>(buf);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
}

static void copy_bytes(int src_fd, int dst_fd, const std::string& what) {
  // copy_file_range keeps the data in the kernel; fall back to read/write where refused.
  for (;;) {
    ssize_t n = ::copy_file_range(src_fd, nullptr, dst_fd, nullptr, 1 << 30, 0);
    if (n > 0) continue;
    if (n == 0) return;
    if (errno == EINTR) continue;
    if (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) break;
    throw Error(fmt::format("cannot copy {}: {}", what, std::strerror(errno)));
  }
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(src_fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    }
    if (n == 0) return;
    write_all(dst_fd, buf.data(), static_cast<size_t>(n), what);
  }
}

bool CloneMode::try_reflink(int src_fd, int dst_fd, const std::string& what) {
  if (!reflink_ok_.load()) return false;
  if (::ioctl(dst_fd, FICLONE, src_fd) == 0) return true;
  // Any refusal means "not here" (EOPNOTSUPP, EXDEV, EINVAL, ENOTTY, EBADF); ENOSPC is real.
  if (errno == ENOSPC) throw Error(fmt::format("cannot clone {}: {}", what, std::strerror(errno)));
  reflink_ok_ = false;
  return false;
}

bool CloneMode::clone_or_copy(int src_fd, int dst_fd, const std::string& what) {
  if (try_reflink(src_fd, dst_fd, what)) return true;
  copy_bytes(src_fd, dst_fd, what);
  return false;
}

bool probe_reflink(const std::string& dir) {
  std::string a = dir + "/.reflink-probe-a", b = dir + "/.reflink-probe-b";
  int fa = ::open(a.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int fb = ::open(b.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = false;
  if (fa >= 0 && fb >= 0) {
    char block[4096] = {1};
    ok = ::write(fa, block, sizeof block) == static_cast<ssize_t>(sizeof block) &&
         ::ioctl(fb, FICLONE, fa) == 0;
  }
  if (fa >= 0) ::close(fa);
  if (fb >= 0) ::close(fb);
  ::unlink(a.c_str());
  ::unlink(b.c_str());
  return ok;
}

}  // namespace lane::storage::local
