#include "submit/local/runtime/cgroup_freezer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

namespace {

bool is_v2(const std::string& dir) { return fs::exists(dir + "/cgroup.freeze"); }

// The file that freezes the group and the values that freeze and thaw it.
struct Control {
  std::string file, freeze, thaw;
};

Control control_of(const std::string& dir) {
  if (is_v2(dir)) return {dir + "/cgroup.freeze", "1", "0"};
  return {dir + "/freezer.state", "FROZEN", "THAWED"};
}

bool write_text(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string freezer_unavailable(const std::string& root) {
  if (::geteuid() != 0)
    return fmt::format("lanectl runs as uid {}, and only root can freeze a job's cgroup", ::geteuid());
  if (fs::exists(fs::path(root) / "cgroup.controllers") || fs::exists(fs::path(root) / "freezer/cgroup.procs"))
    return "";
  return fmt::format("this host has neither cgroup v2 nor the v1 freezer controller under {}", root);
}

std::string job_freezer(const std::string& name, const std::string& root) {
  const fs::path base(root);
  const fs::path dir = fs::exists(base / "cgroup.controllers") ? base / "lanectl" / name : base / "freezer/lanectl" / name;
  return fs::exists(dir / "cgroup.procs") ? dir.string() : "";
}

bool in_freezer(const std::string& dir, pid_t pid) {
  const std::string self = std::to_string(pid ? pid : ::getpid());
  std::istringstream procs(read_text(dir + "/cgroup.procs"));
  for (std::string line; std::getline(procs, line);)
    if (line == self) return true;
  return false;
}

bool cgroup_populated(const std::string& dir) { return !read_text(dir + "/cgroup.procs").empty(); }

bool cgroup_frozen(const std::string& dir) {
  if (is_v2(dir)) return read_text(dir + "/cgroup.events").find("frozen 1") != std::string::npos;
  return read_text(dir + "/freezer.state").rfind("FROZEN", 0) == 0;
}

lane::UniqueFd lock_freezes(const std::string& lock_file, const std::function<void()>& while_waiting) {
  lane::UniqueFd fd(::open(lock_file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.ok()) throw Error(fmt::format("cannot open {}: {}", lock_file, std::strerror(errno)));
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    while_waiting();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return fd;
}

bool thaw_abandoned(const std::string& freezer, const std::string& lock_file) {
  if (freezer.empty() || !cgroup_frozen(freezer)) return false;
  lane::UniqueFd fd(::open(lock_file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.ok() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return false;  // its freezer is at work
  const Control c = control_of(freezer);
  return write_text(c.file, c.thaw);
}

void FrozenCgroups::freeze(const std::string& dir) {
  // On cgroup v1 a group can stay FREEZING for good: a vfork child frozen before its exec holds
  // its parent in a wait that the freezer never counts as frozen. Thawed for a moment, the child
  // goes on to its exec, and a new freeze catches both: retried every kRefreezeAfter.
  constexpr auto kRefreezeAfter = std::chrono::milliseconds(100);
  constexpr auto kThawedFor = std::chrono::milliseconds(10);
  const Control c = control_of(dir);
  auto write_failure = [&](int error) {
    return fmt::format("cannot freeze the cgroup {}: writing {} to {}: {}", dir, c.freeze, c.file, std::strerror(error));
  };
  auto give_up = [&](const std::string& why) {
    write_text(c.file, c.thaw);
    frozen_.pop_back();
    throw Error(why);
  };
  if (!write_text(c.file, c.freeze)) throw Error(write_failure(errno));
  frozen_.push_back(dir);
  const auto until = std::chrono::steady_clock::now() + timeout_;
  auto refreeze_at = std::chrono::steady_clock::now() + kRefreezeAfter;
  while (!cgroup_frozen(dir)) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until)
      give_up(fmt::format("the cgroup {} did not freeze within {} ms (a process in uninterruptible I/O?)", dir,
                          timeout_.count()));
    if (now < refreeze_at) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    write_text(c.file, c.thaw);
    std::this_thread::sleep_for(kThawedFor);
    if (!write_text(c.file, c.freeze)) give_up(write_failure(errno));
    refreeze_at = std::chrono::steady_clock::now() + kRefreezeAfter;
  }
}

std::vector<std::string> FrozenCgroups::thaw() {
  std::vector<std::string> failed;
  for (const auto& dir : frozen_) {
    const Control c = control_of(dir);
    if (!write_text(c.file, c.thaw))
      failed.push_back(fmt::format("cannot thaw the cgroup {}: {}; thaw it with `echo {} > {}`", dir,
                                   std::strerror(errno), c.thaw, c.file));
  }
  frozen_.clear();
  return failed;
}

FrozenCgroups::~FrozenCgroups() {
  for (const auto& line : thaw()) std::cerr << "lanectl: " << line << "\n";
}

}  // namespace lane::submit::local
