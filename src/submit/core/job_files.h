#pragma once
// The JobFiles role: read-only access to the files a job wrote (its metrics.jsonl, the overlays of
// a predict run), by their path inside the job's container, for the dashboard. The local backend
// maps the path through the job's --pvc and -v mounts onto this machine's directories; the
// Kubernetes backend reads it in the job's chief pod while that pod runs. A read never leaves the
// mount it starts in: paths with '.', '..' or empty components are refused, and so is a symbolic
// link anywhere along the path. What cannot be read is an answer with a reason, not an error.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "submit/core/workload.h"

namespace lane::submit {

// One file, at most max_bytes of it.
struct JobFileRead {
  bool ok = false;
  std::string reason;     // why not, when !ok: a sentence for a page ("the job's pod is gone ...")
  std::string data;       // the first max_bytes, or the last ones when read with tail
  uint64_t size = 0;      // the file's whole size
  int64_t modified_unix_ms = 0;
  bool truncated() const { return data.size() < size; }
};

struct JobFileEntry {
  std::string name;
  uint64_t size = 0;
  int64_t modified_unix_ms = 0;
};

// The regular files directly in a directory (symbolic links and subdirectories left out).
struct JobDirRead {
  bool ok = false;
  std::string reason;
  std::vector<JobFileEntry> entries;  // newest first, then by name
  bool truncated = false;             // more than max_entries files
};

// The outcome of a write: not ok with a reason (a sentence naming the path and the fix).
struct JobFileWrite {
  bool ok = false;
  std::string reason;
};

// One file of the job opened for reading in pieces (a download): every read is of the file that
// was opened, whatever happens to its path afterwards.
class JobFileReader {
 public:
  virtual ~JobFileReader() = default;
  // Up to `n` bytes at `offset` into `buf`; the count read, 0 at the end. Throws lane::Error.
  virtual size_t read_at(uint64_t offset, char* buf, size_t n) = 0;

  uint64_t size = 0;  // when opened
  int64_t modified_unix_ms = 0;
};

// The files that fit JobFiles::kMaxBufferedRead, held in memory (what open_file does by default).
class BufferedJobFile : public JobFileReader {
 public:
  explicit BufferedJobFile(JobFileRead read);
  size_t read_at(uint64_t offset, char* buf, size_t n) override;

 private:
  std::string data_;
};

class JobFiles {
 public:
  // What the default open_file reads into memory at most.
  static constexpr uint64_t kMaxBufferedRead = 64u << 20;

  virtual ~JobFiles() = default;

  // The job's OUTPUT_DIR as its container sees it: its -e OUTPUT_DIR, else the image's default;
  // nullopt with `why` (a sentence for a page) when it is not known: the job does not exist, sets
  // none, or (Kubernetes) its pod that would tell the image's default does not run.
  virtual std::optional<std::string> output_dir(const std::string& name, const std::string& project,
                                                std::string& why) = 0;
  // The file at `path` (see is_clean_absolute_path), at most `max_bytes`: the last ones with
  // `tail` (a growing log), else the first.
  virtual JobFileRead read_file(const std::string& name, const std::string& project, const std::string& path,
                                uint64_t max_bytes, bool tail) = 0;
  virtual JobDirRead list_dir(const std::string& name, const std::string& project, const std::string& path,
                              size_t max_entries) = 0;
  // The regular file at `path` opened for a download; nullptr with `why` when it cannot be. By
  // default read_file reads it whole (at most kMaxBufferedRead bytes; a larger file is refused
  // with a reason); a backend that can keep the file open (local) reads it in pieces instead.
  virtual std::unique_ptr<JobFileReader> open_file(const std::string& name, const std::string& project,
                                                   const std::string& path, std::string& why);
  // `lanectl cp LOCAL JOB:/path`: `data` becomes the regular file at `path` (rules as for
  // read_file; its directory must exist and no link is followed on the way) in one step: written
  // beside it, then renamed over it. Refused, with the reason, on a read-only mount, and for a
  // path on none of the job's mounts. By default: not supported (the reason says so).
  virtual JobFileWrite write_file(const std::string& name, const std::string& project, const std::string& path,
                                  const std::string& data);
};

// An absolute path whose components are none of "", "." and ".." (so "/a/b", not "/a//b", "/a/./b",
// "/a/../b" or "/a/b/"); "/" itself is not a file path. At most 4096 characters, no NUL.
bool is_clean_absolute_path(std::string_view path);

// `path` relative to `root` when it lies strictly under it ("/mnt/runs/x" under "/mnt" is
// "runs/x"), lexically; "" when it does not (or is `root` itself).
std::string relative_path_under(const std::string& path, const std::string& root);

// Where `container_path` lies among the job's mounts: the deepest --pvc claim or -v host
// directory whose mount path holds it (as the container sees it: a deeper mount covers a
// shallower one), and the path below that mount ("" = the mount path itself).
struct MountedPath {
  bool claim = false;       // true: a --pvc claim (`source` is its name); false: -v (`source` is the host directory)
  std::string source;
  std::string relative;
  bool read_only = false;
};
std::optional<MountedPath> locate_in_mounts(const JobSpec& spec, const std::string& container_path);
// Why JobFiles::write_file refuses `path`, found at `mount`: a read-only mount, or the mount
// point itself; "" when the path can be written.
std::string write_refusal(const std::string& path, const MountedPath& mount);

// The value of the job's -e NAME (the last one given), else nullopt.
std::optional<std::string> env_value(const JobSpec& spec, std::string_view name);

}  // namespace lane::submit
