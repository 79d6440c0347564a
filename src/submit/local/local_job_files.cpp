// The JobFiles role of the local backend: a job's files, by their path in its sandbox, read
// from the directory of the claim or -v host directory mounted there (local_jobs.h).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/beneath.h"
#include "common/error.h"
#include "submit/local/runtime/images.h"
#include "submit/local/local_jobs.h"

namespace lane::submit::local {
namespace {

int64_t mtime_ms(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// Where a path of the job lies on this machine: the mount's directory and the path below it.
struct HostLocation {
  std::string root;      // the claim's directory or the -v host directory
  MountedPath mount;     // where the path is among the job's mounts; mount.relative "" = the root itself
  std::string why;       // when root is empty
};

// Opens `rel` below the directory `root` without following a symbolic link anywhere on it
// (common/beneath.h: a link fails with ELOOP, a non-directory on the way with ENOTDIR).
// `want_dir`: the last component must be a directory. -1 with errno on failure.
int open_below(const std::string& root, const std::string& rel, bool want_dir) {
  UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) return -1;
  if (rel.empty()) return want_dir ? dir.release() : (errno = EISDIR, -1);
  const int flags = O_RDONLY | O_NONBLOCK | (want_dir ? O_DIRECTORY : 0);  // O_NONBLOCK: a FIFO does not block the open
  return open_beneath(dir.get(), rel, flags).release();
}

std::string open_failure(const std::string& path, int err) {
  switch (err) {
    case ENOENT: return path + " does not exist (yet)";
    case ELOOP:
    case ENOTDIR: return path + " is, or goes through, a symbolic link or a non-directory; links are not followed";
    case EACCES:
    case EPERM: return path + " cannot be read by the dashboard (permission denied)";
    case EISDIR: return path + " is a directory";
    case EROFS: return path + " is on a read-only file system";
    default: return path + ": " + std::strerror(err);
  }
}

}  // namespace

std::optional<std::string> LocalJobs::output_dir(const std::string& name, const std::string& project,
                                                 std::string& why) {
  auto job = describe_job(name, project);
  if (!job) {
    why = "the job does not exist";
    return std::nullopt;
  }
  if (auto v = env_value(job->spec, "OUTPUT_DIR"); v && !v->empty()) return v;
  if (auto image = resolve_local_image(job->spec.image))
    for (const auto& [k, v] : image->env)
      if (k == "OUTPUT_DIR" && !v.empty()) return v;
  why = "the job sets no OUTPUT_DIR (-e OUTPUT_DIR=...) and its image has none by default";
  return std::nullopt;
}

namespace {

HostLocation locate(LocalState& st, const std::optional<JobInfo>& job, const std::string& path) {
  HostLocation loc;
  if (!job) {
    loc.why = "the job does not exist";
    return loc;
  }
  if (!is_clean_absolute_path(path)) {
    loc.why = "'" + path + "' is not a clean absolute path (no '.', '..' or empty parts)";
    return loc;
  }
  auto mount = locate_in_mounts(job->spec, path);
  if (!mount) {
    loc.why = path + " is on none of the job's volumes (--pvc, -v): the rest of a local job's file system is "
                     "private to its sandbox";
    return loc;
  }
  if (mount->claim) {
    auto vol = st.volumes.find(mount->source);
    if (!vol || vol->local_path.empty()) {
      loc.why = "the claim " + mount->source + " mounted there no longer exists";
      return loc;
    }
    loc.root = vol->local_path.string();
  } else {
    loc.root = mount->source;
  }
  loc.mount = *mount;
  return loc;
}

// Opens the job's `path` (a directory with `want_dir`); -1 with `why` set when it cannot.
int open_job_path(LocalState& st, const std::optional<JobInfo>& job, const std::string& path, bool want_dir,
                  std::string& why) {
  const HostLocation loc = locate(st, job, path);
  if (loc.root.empty()) {
    why = loc.why;
    return -1;
  }
  int fd = open_below(loc.root, loc.mount.relative, want_dir);
  if (fd < 0) why = open_failure(path, errno);
  return fd;
}

// The job's regular file at `path`, with its fstat; not ok() with `why` when it cannot be opened.
UniqueFd open_job_file(LocalState& st, const std::optional<JobInfo>& job, const std::string& path, struct stat& sb,
                       std::string& why) {
  UniqueFd fd(open_job_path(st, job, path, false, why));
  if (!fd.ok()) return fd;
  if (::fstat(fd.get(), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    why = path + " is not a regular file";
    return UniqueFd();
  }
  return fd;
}

// A download's file: pread on the descriptor opened once.
class LocalJobFile : public JobFileReader {
 public:
  LocalJobFile(UniqueFd fd, std::string path, const struct stat& sb) : fd_(std::move(fd)), path_(std::move(path)) {
    size = static_cast<uint64_t>(sb.st_size);
    modified_unix_ms = mtime_ms(sb);
  }
  size_t read_at(uint64_t offset, char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::pread(fd_.get(), buf, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw Error(path_ + ": " + std::strerror(errno));
      return static_cast<size_t>(got);
    }
  }

 private:
  UniqueFd fd_;
  std::string path_;
};

}  // namespace

std::unique_ptr<JobFileReader> LocalJobs::open_file(const std::string& name, const std::string& project,
                                                    const std::string& path, std::string& why) {
  struct stat sb {};
  UniqueFd fd = open_job_file(st_, describe_job(name, project), path, sb, why);
  if (!fd.ok()) return nullptr;
  return std::make_unique<LocalJobFile>(std::move(fd), path, sb);
}

JobFileRead LocalJobs::read_file(const std::string& name, const std::string& project, const std::string& path,
                                 uint64_t max_bytes, bool tail) {
  JobFileRead r;
  struct stat st {};
  UniqueFd fd = open_job_file(st_, describe_job(name, project), path, st, r.reason);
  if (!fd.ok()) return r;
  r.size = static_cast<uint64_t>(st.st_size);
  r.modified_unix_ms = mtime_ms(st);
  const uint64_t want = std::min<uint64_t>(r.size, max_bytes);
  off_t offset = tail ? static_cast<off_t>(r.size - want) : 0;
  r.data.resize(want);
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::pread(fd.get(), r.data.data() + got, want - got, offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.reason = path + ": " + std::strerror(errno);
      r.data.clear();
      return r;
    }
    if (n == 0) break;  // the file shrank meanwhile
    got += static_cast<size_t>(n);
  }
  r.data.resize(got);
  r.ok = true;
  return r;
}

JobDirRead LocalJobs::list_dir(const std::string& name, const std::string& project, const std::string& path,
                               size_t max_entries) {
  JobDirRead r;
  UniqueFd fd(open_job_path(st_, describe_job(name, project), path, true, r.reason));
  if (fd.get() < 0) return r;
  DIR* dir = ::fdopendir(fd.get());
  if (!dir) {
    r.reason = open_failure(path, errno);
    return r;
  }
  const int dfd = fd.release();  // owned by `dir` now
  constexpr size_t kMaxScanned = 100000;
  size_t scanned = 0;
  while (struct dirent* e = ::readdir(dir)) {
    if (++scanned > kMaxScanned) {
      r.truncated = true;
      break;
    }
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    r.entries.push_back({e->d_name, static_cast<uint64_t>(st.st_size), mtime_ms(st)});
  }
  ::closedir(dir);
  std::sort(r.entries.begin(), r.entries.end(), [](const JobFileEntry& a, const JobFileEntry& b) {
    return a.modified_unix_ms != b.modified_unix_ms ? a.modified_unix_ms > b.modified_unix_ms : a.name < b.name;
  });
  if (r.entries.size() > max_entries) {
    r.entries.resize(max_entries);
    r.truncated = true;
  }
  r.ok = true;
  return r;
}

namespace {

// `data` into a new file `tmp` in the open directory `dir_fd` (owned like the directory), then
// renamed to `leaf`; errno of the failing step, 0 on success. The temporary file never outlives a failure.
int write_and_rename(int dir_fd, const std::string& tmp, const std::string& leaf, const std::string& data) {
  struct stat dir_st {};
  if (::fstat(dir_fd, &dir_st) != 0) return errno;
  UniqueFd fd(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.ok()) return errno;
  int err = 0;
  for (size_t done = 0; !err && done < data.size();) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (!err && ::geteuid() == 0 && ::fchown(fd.get(), dir_st.st_uid, dir_st.st_gid) != 0) err = errno;
  if (!err && ::fsync(fd.get()) != 0) err = errno;
  if (!err && ::renameat(dir_fd, tmp.c_str(), dir_fd, leaf.c_str()) != 0) err = errno;
  if (err) ::unlinkat(dir_fd, tmp.c_str(), 0);
  else ::fsync(dir_fd);
  return err;
}

}  // namespace

JobFileWrite LocalJobs::write_file(const std::string& name, const std::string& project, const std::string& path,
                                   const std::string& data) {
  JobFileWrite w;
  const HostLocation loc = locate(st_, describe_job(name, project), path);
  if (loc.root.empty()) {
    w.reason = loc.why;
    return w;
  }
  if (w.reason = write_refusal(path, loc.mount); !w.reason.empty()) return w;
  const std::string& relative = loc.mount.relative;
  const size_t slash = relative.rfind('/');
  const std::string parent = slash == std::string::npos ? "" : relative.substr(0, slash);
  const std::string leaf = relative.substr(slash + 1);
  UniqueFd dir(open_below(loc.root, parent, true));
  if (!dir.ok()) {
    w.reason = open_failure(path.substr(0, path.rfind('/')), errno);
    return w;
  }
  struct stat existing {};
  if (::fstatat(dir.get(), leaf.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(existing.st_mode)) {
    w.reason = open_failure(path, EISDIR);
    return w;
  }
  const std::string tmp = "." + leaf.substr(0, 200) + ".lanectl-cp-" + std::to_string(::getpid());
  if (const int err = write_and_rename(dir.get(), tmp, leaf, data)) {
    w.reason = err == EACCES || err == EPERM ? path + " cannot be written (permission denied)" : open_failure(path, err);
    return w;
  }
  w.ok = true;
  return w;
}

}  // namespace lane::submit::local
