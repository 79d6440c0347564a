#include "submit/local/runtime/job_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

namespace {

bool write_value(const std::string& path, const std::string& value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  close(fd);
  return ok;
}

void set_value(const std::string& path, const std::string& value) {
  if (!write_value(path, value))
    throw Error(fmt::format("cannot set {} to {}: {}", path, value, std::strerror(errno)));
}

// The value of `key` in a "key value" file (memory.events, memory.oom_control, /proc/vmstat).
std::optional<int64_t> keyed_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  int64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

// Groups of supervisors that are gone ("s<pid>-..."), left by a SIGKILL: removed when empty.
void remove_stale_groups(const fs::path& parent) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename();
    if (name.size() < 2 || name[0] != 's') continue;
    const pid_t pid = static_cast<pid_t>(std::atoi(name.c_str() + 1));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) rmdir(e.path().c_str());
  }
}

fs::path make_group(const fs::path& parent, const std::string& name) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  remove_stale_groups(parent);
  const fs::path dir = parent / name;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error(fmt::format("cannot create the job's cgroup {}: {}", dir.string(), std::strerror(errno)));
  return dir;
}

std::string cfs_quota(double cpus) {
  return std::to_string(std::max<int64_t>(1000, std::llround(cpus * 100000)));
}

}  // namespace

int64_t job_pids_limit() {
  const char* v = std::getenv("LANECTL_JOB_PIDS_MAX");
  if (!v || !*v) return kDefaultJobPids;
  const long long n = std::atoll(v);
  if (n < 1 || n > kMaxJobPids)
    throw Error(fmt::format("LANECTL_JOB_PIDS_MAX={} is not a number from 1 to {}", v, kMaxJobPids));
  return n;
}

JobCgroup JobCgroup::create(const std::string& name, const CgroupLimits& limits, const std::string& root) {
  JobCgroup g;
  if (geteuid() != 0) return g;
  const fs::path base(root);
  if (fs::exists(base / "cgroup.controllers")) {
    g.version_ = "v2";
    for (const auto& dir : {base, base / "lanectl"}) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      for (const char* c : {"+memory", "+cpu", "+pids"}) write_value((dir / "cgroup.subtree_control").string(), c);
    }
    const fs::path dir = make_group(base / "lanectl", name);
    g.dirs_.push_back(dir);
    g.memory_dir_ = dir;
    if (limits.memory_bytes) set_value(dir / "memory.max", std::to_string(limits.memory_bytes));
    if (limits.memory_bytes && fs::exists(dir / "memory.swap.max")) set_value(dir / "memory.swap.max", "0");
    if (limits.cpus > 0) set_value(dir / "cpu.max", cfs_quota(limits.cpus) + " 100000");
    if (limits.pids_max) set_value(dir / "pids.max", std::to_string(limits.pids_max));
    return g;
  }
  // A v1 hierarchy is mounted where cgroup.procs exists (the root group has no pids.max).
  const bool memory = fs::exists(base / "memory/cgroup.procs");
  const bool cpu = fs::exists(base / "cpu/cgroup.procs");
  const bool pids = fs::exists(base / "pids/cgroup.procs");
  const bool freezer = fs::exists(base / "freezer/cgroup.procs");
  if (!memory && !cpu && !pids && !freezer) return g;
  g.version_ = "v1";
  if (memory) {
    g.memory_dir_ = make_group(base / "memory/lanectl", name);
    g.dirs_.push_back(g.memory_dir_);
    if (limits.memory_bytes) {
      set_value(g.memory_dir_ + "/memory.limit_in_bytes", std::to_string(limits.memory_bytes));
      if (fs::exists(g.memory_dir_ + "/memory.memsw.limit_in_bytes"))  // no escape into swap
        set_value(g.memory_dir_ + "/memory.memsw.limit_in_bytes", std::to_string(limits.memory_bytes));
    }
  }
  if (cpu) {
    g.dirs_.push_back(make_group(base / "cpu/lanectl", name));
    if (limits.cpus > 0) set_value(g.dirs_.back() + "/cpu.cfs_quota_us", cfs_quota(limits.cpus));
  }
  if (pids) {
    g.dirs_.push_back(make_group(base / "pids/lanectl", name));
    if (limits.pids_max) set_value(g.dirs_.back() + "/pids.max", std::to_string(limits.pids_max));
  }
  if (freezer) g.dirs_.push_back(make_group(base / "freezer/lanectl", name));  // point-in-time snapshots
  return g;
}

JobCgroup::~JobCgroup() { remove(); }

JobCgroup::JobCgroup(JobCgroup&& other) noexcept
    : version_(std::move(other.version_)), dirs_(std::move(other.dirs_)), memory_dir_(std::move(other.memory_dir_)) {
  other.dirs_.clear();
}

JobCgroup& JobCgroup::operator=(JobCgroup&& other) noexcept {
  if (this != &other) {
    remove();
    version_ = std::move(other.version_);
    dirs_ = std::move(other.dirs_);
    memory_dir_ = std::move(other.memory_dir_);
    other.dirs_.clear();
  }
  return *this;
}

std::vector<std::string> JobCgroup::procs_files() const {
  std::vector<std::string> out;
  for (const auto& d : dirs_) out.push_back(d + "/cgroup.procs");
  return out;
}

std::optional<int64_t> JobCgroup::oom_kills() const {
  if (memory_dir_.empty()) return std::nullopt;
  return version_ == "v2" ? keyed_value(memory_dir_ + "/memory.events", "oom_kill")
                          : keyed_value(memory_dir_ + "/memory.oom_control", "oom_kill");
}

void JobCgroup::remove() {
  for (const auto& d : dirs_)
    for (int i = 0; i < 100 && rmdir(d.c_str()) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  dirs_.clear();
  memory_dir_.clear();
}

std::optional<int64_t> host_oom_kills() { return keyed_value("/proc/vmstat", "oom_kill"); }

std::string job_cgroup_name(pid_t supervisor, int64_t job_id) { return fmt::format("s{}-job{}", supervisor, job_id); }

std::vector<std::string> existing_job_cgroups(const std::string& name, const std::string& root) {
  const fs::path base(root);
  std::vector<fs::path> dirs{base / "lanectl" / name};
  if (!fs::exists(base / "cgroup.controllers"))
    dirs = {base / "memory/lanectl" / name, base / "cpu/lanectl" / name, base / "pids/lanectl" / name,
            base / "freezer/lanectl" / name};
  std::vector<std::string> out;
  for (const auto& d : dirs)
    if (fs::exists(d / "cgroup.procs")) out.push_back(d);
  return out;
}

bool join_cgroups(const std::vector<std::string>& procs_files) {
  for (const auto& f : procs_files)
    if (!write_value(f, "0")) return false;
  return true;
}

}  // namespace lane::submit::local
