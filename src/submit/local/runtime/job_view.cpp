#include "submit/local/runtime/job_view.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace lane::submit::local {
namespace fs = std::filesystem;

const std::vector<std::string>& job_etc_entries() {
  static const std::vector<std::string> entries = {
      "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "host.conf", "hosts",
      "resolv.conf", "gai.conf", "localtime", "timezone", "ssl", "ca-certificates",
      "alternatives", "openmpi", "mime.types"};
  return entries;
}

std::vector<std::string> job_devices() {
  std::vector<std::string> out = {"null", "zero", "full", "random", "urandom", "tty"};
  glob_t g{};
  if (glob("/dev/nvidia*", 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      struct stat st {};
      if (stat(g.gl_pathv[i], &st) == 0 && S_ISCHR(st.st_mode)) out.push_back(fs::path(g.gl_pathv[i]).filename());
    }
  globfree(&g);
  return out;
}

std::vector<ViewEntry> job_view(const LaunchPlan& plan) {
  std::vector<ViewEntry> v;
  v.push_back({ViewEntry::kRoBind, "/usr", "/usr"});
  // Merged /usr (Debian 12): /bin, /lib... are links into /usr; elsewhere they are directories.
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    auto st = fs::symlink_status(top, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st))
      v.push_back({ViewEntry::kSymlink, fs::read_symlink(top, ec).string(), top});
    else if (fs::is_directory(st))
      v.push_back({ViewEntry::kRoBind, top, top});
  }
  for (const auto& name : job_etc_entries()) {
    std::string path = "/etc/" + name;
    if (access(path.c_str(), F_OK) == 0) v.push_back({ViewEntry::kRoBind, path, path});
  }
  if (!plan.passwd_file.empty()) v.push_back({ViewEntry::kRoBind, plan.passwd_file, "/etc/passwd"});
  if (!plan.group_file.empty()) v.push_back({ViewEntry::kRoBind, plan.group_file, "/etc/group"});
  if (!plan.bin_dir.empty()) v.push_back({ViewEntry::kRoBind, plan.bin_dir, kJobBinDir});
  v.push_back({ViewEntry::kRoBind, "/sys", "/sys"});  // hwloc (MPI) reads the topology here
  v.push_back({ViewEntry::kProc, "", "/proc"});
  v.push_back({ViewEntry::kDevDir, "", "/dev"});
  for (const auto& d : job_devices()) v.push_back({ViewEntry::kDevBind, "/dev/" + d, "/dev/" + d});
  const std::pair<const char*, const char*> links[] = {
      {"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
      {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
  for (const auto& [to, at] : links) v.push_back({ViewEntry::kSymlink, to, at});
  v.push_back({ViewEntry::kTmpfs, "", "/dev/shm", plan.shm_bytes, 01777});
  v.push_back({ViewEntry::kTmpfs, "", "/tmp", 0, 01777});
  if (!plan.api_dir.empty()) v.push_back({ViewEntry::kRoBind, plan.api_dir, kJobApiDir});
  for (const auto& m : plan.mounts)
    v.push_back({m.read_only ? ViewEntry::kRoBind : ViewEntry::kBind, m.source, m.target});
  for (const auto& mask : plan.masks) v.push_back({ViewEntry::kMask, "", mask});
  return v;
}

}  // namespace lane::submit::local
