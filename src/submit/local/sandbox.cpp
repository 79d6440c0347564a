#include "submit/local/sandbox.h"

#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace lane::submit::local {

std::string sandbox_mode() {
  const char* forced = std::getenv("LANECTL_SANDBOX");
  if (forced && std::string(forced) == "bwrap") return "bwrap";
  if (forced && std::string(forced) == "unshare") return "unshare";
  return geteuid() == 0 ? "unshare" : "bwrap";
}

namespace {

[[noreturn]] void die(const std::string& what) {
  std::string msg = "lanectl: cannot start the job: " + what + "\n";
  ssize_t ignored = write(2, msg.data(), msg.size());
  (void)ignored;
  _exit(127);
}

[[noreturn]] void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  die("exec " + argv[0] + ": " + std::strerror(errno));
}

void ensure_dir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);  // the mount point; no-op when it exists
}

void mount_or_die(const char* src, const std::string& target, const char* type, unsigned long flags,
                  const char* data) {
  if (mount(src, target.c_str(), type, flags, data) != 0)
    die("mount " + target + ": " + std::strerror(errno));
}

void setup_unshare(const LaunchPlan& plan) {
  if (unshare(CLONE_NEWNS) != 0) die(std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno));
  // Keep our mounts out of the host namespace.
  mount_or_die(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
  for (const auto& m : plan.mounts) {
    ensure_dir(m.target);
    mount_or_die(m.source.c_str(), m.target, nullptr, MS_BIND | MS_REC, nullptr);
    if (m.read_only)
      mount_or_die(nullptr, m.target, nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID, nullptr);
  }
  ensure_dir("/dev/shm");
  std::string opts = "size=" + std::to_string(plan.shm_bytes) + ",mode=1777";
  mount_or_die("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str());
}

std::vector<std::string> bwrap_argv(const LaunchPlan& plan) {
  std::vector<std::string> argv = {"bwrap", "--dev-bind", "/", "/"};
  for (const auto& m : plan.mounts) {
    argv.push_back(m.read_only ? "--ro-bind" : "--bind");
    argv.push_back(m.source);
    argv.push_back(m.target);
  }
  argv.insert(argv.end(), {"--size", std::to_string(plan.shm_bytes), "--tmpfs", "/dev/shm"});
  if (!plan.working_dir.empty()) argv.insert(argv.end(), {"--chdir", plan.working_dir});
  argv.push_back("--");
  argv.insert(argv.end(), plan.argv.begin(), plan.argv.end());
  return argv;
}

}  // namespace

void exec_in_sandbox(const LaunchPlan& plan) {
  for (const auto& [name, value] : plan.env) setenv(name.c_str(), value.c_str(), 1);
  if (plan.argv.empty()) die("empty command");
  if (sandbox_mode() == "bwrap") exec_argv(bwrap_argv(plan));
  setup_unshare(plan);
  if (!plan.working_dir.empty() && chdir(plan.working_dir.c_str()) != 0)
    die("working directory " + plan.working_dir + ": " + std::strerror(errno));
  exec_argv(plan.argv);
}

}  // namespace lane::submit::local
