#include "submit/local/runtime/sandbox_root.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>
#include <string>

#include "submit/local/runtime/job_view.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void do_mount(const char* src, const std::string& target, const char* type, unsigned long flags,
              const std::string& data = "") {
  if (mount(src, target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) != 0)
    fail("mount " + target);
}

// A mount point for `source` at `target`: a directory, or an empty file for a file/device.
void make_mount_point(const std::string& source, const std::string& target) {
  std::error_code ec;
  struct stat st {};
  bool dir = source.empty() || (stat(source.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
  fs::create_directories(dir ? fs::path(target) : fs::path(target).parent_path(), ec);
  if (ec) {
    errno = ec.value();
    fail("mkdir " + target);
  }
  if (!dir) {
    int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail("create " + target);
    close(fd);
  }
}

// Remounts the bind mount at `target` with `read_only`, keeping the flags the kernel locks on
// the source mount (nodev, noexec, ...).
void remount_bind(const std::string& target, bool read_only) {
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | (read_only ? MS_RDONLY : 0);
  struct statvfs sv {};
  if (statvfs(target.c_str(), &sv) == 0) {
    if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  }
  do_mount(nullptr, target, nullptr, flags);
}

// A mount point as /proc/self/mountinfo writes it (space, tab, newline, backslash as \ooo).
std::string unescape_mount_point(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out.push_back(static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8)));
      i += 3;
    } else {
      out.push_back(field[i]);
    }
  }
  return out;
}

// A recursive bind brings along what is mounted below the source (/sys/fs/cgroup, ...), and
// MS_RDONLY on the top mount leaves those writable: each is made read-only too.
void remount_submounts_read_only(const std::string& target) {
  std::ifstream in("/proc/self/mountinfo");
  std::vector<std::string> below;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, point;
    fields >> id >> parent >> devno >> root >> point;
    point = unescape_mount_point(point);
    if (point.rfind(target + "/", 0) == 0) below.push_back(point);
  }
  for (const auto& p : below) remount_bind(p, true);
}

void bind(const std::string& source, const std::string& target, bool read_only) {
  make_mount_point(source, target);
  do_mount(source.c_str(), target, nullptr, MS_BIND | MS_REC);
  remount_bind(target, read_only);
  if (read_only) remount_submounts_read_only(target);
}

std::string fmt_mode(unsigned mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%o", mode);
  return buf;
}

// A directory to build the new root on: one that holds none of the sources (a tmpfs mounted
// there hides what is below it, in this namespace only).
std::string pick_build_dir(const LaunchPlan& plan) {
  auto holds = [](const std::string& dir, const std::string& path) {
    return !path.empty() && relative_within(path, dir).has_value();
  };
  for (const char* dir : {"/mnt", "/srv", "/media", "/opt", "/var/tmp", "/tmp", "/run", "/home"}) {
    if (!fs::is_directory(dir)) continue;
    bool used = holds(dir, plan.bin_dir) || holds(dir, plan.api_dir) || holds(dir, plan.passwd_file) ||
                holds(dir, plan.group_file);
    for (const auto& m : plan.mounts) used = used || holds(dir, fs::weakly_canonical(m.source).string());
    if (!used) return dir;
  }
  throw std::runtime_error("no directory to build the job's root on (all of /mnt /srv /media /opt /var/tmp /tmp /run /home hold volumes)");
}

}  // namespace

void enter_job_root(const LaunchPlan& plan) {
  // Nothing we mount propagates to the host, nothing the host mounts later appears here.
  do_mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE);
  const std::string root = pick_build_dir(plan);
  do_mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m");
  for (const auto& e : job_view(plan)) {
    const std::string at = root + e.target;
    switch (e.kind) {
      case ViewEntry::kRoBind: bind(e.source, at, true); break;
      case ViewEntry::kBind: bind(e.source, at, false); break;
      case ViewEntry::kDevBind:
        make_mount_point(e.source, at);
        do_mount(e.source.c_str(), at, nullptr, MS_BIND);
        break;
      case ViewEntry::kSymlink: {
        std::error_code ec;
        fs::create_directories(fs::path(at).parent_path(), ec);
        if (symlink(e.source.c_str(), at.c_str()) != 0) fail("symlink " + at);
        break;
      }
      case ViewEntry::kTmpfs: {
        make_mount_point("", at);
        std::string opts = "mode=" + fmt_mode(e.mode);
        if (e.size) opts += ",size=" + std::to_string(e.size);
        do_mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, opts);
        break;
      }
      case ViewEntry::kMask:
        make_mount_point("", at);
        do_mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "mode=0555,size=4k");
        break;
      case ViewEntry::kProc:
        make_mount_point("", at);
        do_mount("proc", at, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC);
        break;
      case ViewEntry::kDevDir:
        make_mount_point("", at);
        do_mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
        break;
    }
  }
  // The root itself and /dev become read-only once every mount point exists.
  do_mount(nullptr, root + "/dev", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC);
  do_mount(nullptr, root, nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV);
  if (chdir(root.c_str()) != 0) fail("chdir " + root);
  if (syscall(SYS_pivot_root, ".", ".") != 0) fail("pivot_root");
  if (umount2(".", MNT_DETACH) != 0) fail("detach the host's root");
  if (chdir("/") != 0) fail("chdir /");
}

}  // namespace lane::submit::local
