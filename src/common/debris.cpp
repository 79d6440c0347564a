#include "common/debris.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>

namespace lane {
namespace fs = std::filesystem;

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::optional<pid_t> pid_after(const std::string& name, const std::string& marker) {
  const size_t at = name.find(marker);
  if (at == std::string::npos) return std::nullopt;
  size_t i = at + marker.size();
  long long pid = 0;
  size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10; ++i, ++digits)
    pid = pid * 10 + (name[i] - '0');
  if (digits == 0 || pid <= 0 || pid > 0x7fffffff) return std::nullopt;
  return static_cast<pid_t>(pid);
}

void remove_dead_staging(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto pid = pid_after("-" + e.path().filename().string(), "-");
    if (pid && !process_alive(*pid)) remove_tree(e.path());
  }
}

void remove_tree(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  // Directories first made writable (top-down), so their entries can be unlinked.
  if (fs::is_directory(fs::symlink_status(path, ec))) {
    ::chmod(path.c_str(), 0700);
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
  }
  fs::remove_all(path, ec);
}

}  // namespace lane
