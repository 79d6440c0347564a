#pragma once
// Job logs on disk: the supervisor writes every line of the job's stdout+stderr prefixed with
// its arrival time ("2026-11-22T00:46:03.123456Z <line>"), like the kubelet's container logs, so
// that `lanectl logs --timestamps/--since` work without guessing.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "submit/core/backend.h"

namespace lane::submit::local {

// Splits a byte stream into lines and appends them, timestamped, to a file.
class TimestampedLogWriter {
 public:
  explicit TimestampedLogWriter(const std::filesystem::path& path);
  ~TimestampedLogWriter();
  void write(const char* data, size_t size);
  void flush_partial();  // at EOF: the last line without a newline
  void note(const std::string& line);  // a line written by the supervisor itself

 private:
  void emit(const std::string& line);
  int fd_ = -1;
  std::string pending_;
};

// Writes the log to `out` honouring tail/since/timestamps. `line_filter` (may be empty) keeps
// only matching lines (e.g. one MPI rank). With opts.follow, keeps polling until `finished()`
// returns true and the file has been read to the end.
void read_log(const std::filesystem::path& path, const LogOptions& opts,
              const std::function<bool(const std::string&)>& line_filter,
              const std::function<bool()>& finished, std::ostream& out);

}  // namespace lane::submit::local
