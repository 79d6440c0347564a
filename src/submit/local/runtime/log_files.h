#pragma once
// Job logs on disk: the supervisor writes every line of the job's stdout+stderr prefixed with
// its arrival time ("2026-11-22T00:46:03.123456Z <line>"), like the kubelet's container logs, so
// that `lanectl logs --timestamps/--since` work without guessing. Bounded: a line longer than
// kMaxLogLineBytes is split, and the log is rotated (output.log → output.log.1, the older one
// dropped) so that both files together stay within the job's log limit.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "submit/core/backend.h"

namespace lane::submit::local {

inline constexpr size_t kMaxLogLineBytes = 64 * 1024;
inline constexpr uint64_t kDefaultLogBytes = 200ull << 20;  // output.log + output.log.1
inline constexpr uint64_t kMinLogBytes = 1ull << 20;
inline constexpr uint64_t kMaxLogBytes = 64ull << 30;

// A job's log limit: LANECTL_LOG_MAX (a quantity from kMinLogBytes to kMaxLogBytes) or
// kDefaultLogBytes. Throws lane::Error naming the variable when it is not valid.
uint64_t job_log_limit();

// Where a log's older half goes when it is rotated: PATH.1.
std::filesystem::path rotated_log_path(const std::filesystem::path& path);

// Splits a byte stream into lines and appends them, timestamped, to a file.
class TimestampedLogWriter {
 public:
  explicit TimestampedLogWriter(const std::filesystem::path& path, uint64_t max_bytes = kDefaultLogBytes);
  ~TimestampedLogWriter();
  TimestampedLogWriter(const TimestampedLogWriter&) = delete;
  TimestampedLogWriter& operator=(const TimestampedLogWriter&) = delete;
  void write(const char* data, size_t size);
  void flush_partial();  // at EOF: the last line without a newline
  void note(const std::string& line);  // a line written by the supervisor itself
  bool disk_full() const { return disk_full_; }  // a write failed: the file system is full

 private:
  void emit(const std::string& line);
  void rotate();
  std::filesystem::path path_;
  uint64_t max_bytes_;
  uint64_t size_ = 0;
  int fd_ = -1;
  bool disk_full_ = false;
  std::string pending_;
};

// Writes the log (PATH.1, then PATH) to `out` honouring tail/since/timestamps; --tail reads
// from the end. `line_filter` (may be empty) keeps
// only matching lines (e.g. one MPI rank). With opts.follow, keeps polling until `finished()`
// returns true and the file has been read to the end.
void read_log(const std::filesystem::path& path, const LogOptions& opts,
              const std::function<bool(const std::string&)>& line_filter,
              const std::function<bool()>& finished, std::ostream& out);

}  // namespace lane::submit::local
