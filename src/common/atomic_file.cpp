#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace lane {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path) {
  throw Error(fmt::format("{} '{}': {}", what, path.string(), std::strerror(errno)));
}

std::string temp_suffix() {
  std::random_device rd;
  return fmt::format(".tmp.{}.{:08x}", ::getpid(), rd());
}

}  // namespace

void fsync_directory(const std::filesystem::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory", dir);
  ::fsync(fd);  // Some file systems refuse fsync on directories; the rename is still atomic.
  ::close(fd);
}

void write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  const auto dir = path.parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  const std::filesystem::path tmp = path.string() + temp_suffix();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp);
  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = saved;
      fail("cannot write", tmp);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    fail("cannot fsync", tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail("cannot rename into place", path);
  }
  fsync_directory(dir);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lane
