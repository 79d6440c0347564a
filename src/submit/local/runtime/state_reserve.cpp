#include "submit/local/runtime/state_reserve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <string>

namespace lane::submit::local {

namespace {

uint64_t available_bytes(const std::filesystem::path& dir) {
  struct statvfs sv {};
  if (statvfs(dir.c_str(), &sv) != 0) return UINT64_MAX;  // unknown: never "full"
  return static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
}

}  // namespace

void StateReserve::ensure() const {
  if (access(path().c_str(), F_OK) == 0 || available_bytes(home_) < 2 * kStateReserveBytes) return;
  const std::string tmp = path().string() + ".new";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool ok = posix_fallocate(fd, 0, static_cast<off_t>(kStateReserveBytes)) == 0 && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path().c_str()) != 0) unlink(tmp.c_str());
}

bool StateReserve::release() const { return unlink(path().c_str()) == 0; }

bool StateReserve::file_system_full() const { return available_bytes(home_) < kFullBelowBytes; }

bool StateReserve::on_same_file_system(const std::filesystem::path& path) const {
  struct stat a {}, b {};
  return stat(home_.c_str(), &a) == 0 && stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev;
}

}  // namespace lane::submit::local
