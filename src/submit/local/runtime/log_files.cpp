#include "submit/local/runtime/log_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <memory>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/quantity.h"

namespace lane::submit::local {

namespace {

std::string timestamp_now() {
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:06d}Z", buf, us % 1000000);
}

// Unix ms of a line's timestamp; 0 when it has none.
int64_t line_time_ms(const std::string& line) {
  std::tm tm{};
  int micros = 0;
  if (line.size() < 28 || sscanf(line.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ", &tm.tm_year, &tm.tm_mon,
                                 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &micros) != 7)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + micros / 1000;
}

// The length of a record's "<RFC 3339 time> " prefix (28), or 0 when it has none. A blank line
// the job printed is its stamp and the space alone.
size_t stamp_length(const std::string& record) {
  return record.size() >= 28 && record[27] == ' ' && line_time_ms(record) ? 28 : 0;
}

using Keep = std::function<bool(const std::string&)>;

// Complete lines of one log file, read forwards from an offset (following a growing file).
class LogCursor {
 public:
  LogCursor(const std::filesystem::path& path, off_t offset) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ >= 0 && fstat(fd_, &st) == 0) ino_ = st.st_ino;
    if (fd_ >= 0) lseek(fd_, offset, SEEK_SET);
  }
  ~LogCursor() {
    if (fd_ >= 0) close(fd_);
  }
  LogCursor(const LogCursor&) = delete;
  LogCursor& operator=(const LogCursor&) = delete;

  // Calls `line` for each complete line read so far; with `to_end` (the file is finished) also
  // for a last line without a newline.
  void each_line(const Keep& line, bool to_end) {
    char buf[65536];
    for (ssize_t n; fd_ >= 0 && (n = read(fd_, buf, sizeof buf)) > 0;) {
      partial_.append(buf, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1)
        line(partial_.substr(start, nl - start));
      partial_.erase(0, start);
    }
    if (to_end && !partial_.empty()) line(partial_);
    if (to_end) partial_.clear();
  }
  // True when `path` is no longer the file this cursor reads (the log was rotated).
  bool replaced(const std::filesystem::path& path) const {
    struct stat st {};
    return fd_ < 0 ? std::filesystem::exists(path) : stat(path.c_str(), &st) == 0 && st.st_ino != ino_;
  }

 private:
  int fd_ = -1;
  ino_t ino_ = 0;
  std::string partial_;
};

// Reads the region [0, end) of `fd` backwards, one line per '\n'-separated piece, putting the
// lines `keep` accepts in front of `out` until it holds `n`.
void last_lines(int fd, off_t end, int64_t n, const Keep& keep, std::deque<std::string>& out) {
  std::string carry;  // the start of the file's region not yet split, i.e. the end of a line
  char buf[65536];
  auto full = [&] { return static_cast<int64_t>(out.size()) >= n; };
  if (end == 0 && !full() && keep(carry)) out.push_front(carry);  // the region is one empty line
  for (off_t pos = end; pos > 0 && !full();) {
    const size_t len = static_cast<size_t>(std::min<off_t>(pos, sizeof buf));
    pos -= static_cast<off_t>(len);
    if (pread(fd, buf, len, pos) != static_cast<ssize_t>(len)) return;
    carry.insert(0, buf, len);
    for (size_t nl; !full() && (nl = carry.rfind('\n')) != std::string::npos; carry.resize(nl))
      if (std::string line = carry.substr(nl + 1); keep(line)) out.push_front(std::move(line));
    if (pos == 0 && !full() && keep(carry)) out.push_front(carry);
  }
}

// Offset just past the last '\n' of the first `size` bytes of `fd` (0 when none).
off_t end_of_complete_lines(int fd, off_t size) {
  char buf[65536];
  for (off_t pos = size; pos > 0;) {
    const size_t len = static_cast<size_t>(std::min<off_t>(pos, sizeof buf));
    pos -= static_cast<off_t>(len);
    if (pread(fd, buf, len, pos) != static_cast<ssize_t>(len)) return 0;
    for (size_t i = len; i > 0; --i)
      if (buf[i - 1] == '\n') return pos + static_cast<off_t>(i);
  }
  return 0;
}

// The last `n` lines of the log that `keep` accepts (from PATH, then PATH.1), oldest first;
// `consumed` is where PATH's complete lines ended.
std::deque<std::string> tail_of_log(const std::filesystem::path& path, int64_t n, const Keep& keep, off_t& consumed) {
  std::deque<std::string> out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  consumed = fd >= 0 && fstat(fd, &st) == 0 ? end_of_complete_lines(fd, st.st_size) : 0;
  if (fd >= 0 && consumed > 0) last_lines(fd, consumed - 1, n, keep, out);
  if (fd >= 0) close(fd);
  fd = open(rotated_log_path(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && static_cast<int64_t>(out.size()) < n && fstat(fd, &st) == 0) {
    const off_t complete = end_of_complete_lines(fd, st.st_size);
    std::deque<std::string> older;
    // A line of the rotated file without a newline is complete: nothing appends to it.
    if (complete < st.st_size) {
      std::string last(static_cast<size_t>(st.st_size - complete), '\0');
      if (pread(fd, last.data(), last.size(), complete) == static_cast<ssize_t>(last.size()) && keep(last))
        older.push_front(last);
    }
    if (complete > 0) last_lines(fd, complete - 1, n - static_cast<int64_t>(out.size()), keep, older);
    out.insert(out.begin(), older.begin(), older.end());
  }
  if (fd >= 0) close(fd);
  return out;
}

}  // namespace

uint64_t job_log_limit() {
  const char* v = std::getenv("LANECTL_LOG_MAX");
  if (!v || !*v) return kDefaultLogBytes;
  auto bytes = parse_quantity_bytes(v);
  if (!bytes || *bytes < kMinLogBytes || *bytes > kMaxLogBytes)
    throw Error(fmt::format("LANECTL_LOG_MAX={} is not a size from 1Mi to 64Gi (e.g. 500Mi)", v));
  return *bytes;
}

std::filesystem::path rotated_log_path(const std::filesystem::path& path) { return path.string() + ".1"; }

TimestampedLogWriter::TimestampedLogWriter(const std::filesystem::path& path, uint64_t max_bytes)
    : path_(path), max_bytes_(max_bytes) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the job log " + path.string());
  struct stat st {};
  if (fstat(fd_, &st) == 0) size_ = static_cast<uint64_t>(st.st_size);
}
TimestampedLogWriter::~TimestampedLogWriter() {
  flush_partial();
  if (fd_ >= 0) close(fd_);
}

// Each file holds at most half the limit: the current one moves to PATH.1 (replacing the older
// half) and a new one starts.
void TimestampedLogWriter::rotate() {
  if (std::rename(path_.c_str(), rotated_log_path(path_).c_str()) != 0) return;
  int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // keeps appending to the rotated file rather than lose the output
  close(fd_);
  fd_ = fd;
  size_ = 0;
}

void TimestampedLogWriter::emit(const std::string& line) {
  std::string record = timestamp_now() + " " + line + "\n";
  if (size_ > 0 && size_ + record.size() > max_bytes_ / 2) rotate();
  const char* p = record.data();
  size_t left = record.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n <= 0) {  // disk full: drop the line rather than kill the job; the supervisor acts on it
      disk_full_ = disk_full_ || errno == ENOSPC || errno == EDQUOT;
      return;
    }
    p += n;
    left -= static_cast<size_t>(n);
    size_ += static_cast<uint64_t>(n);
  }
}

void TimestampedLogWriter::write(const char* data, size_t size) {
  pending_.append(data, size);
  size_t start = 0, nl;
  while ((nl = pending_.find('\n', start)) != std::string::npos || pending_.size() - start >= kMaxLogLineBytes) {
    // A line longer than the limit is split into pieces of kMaxLogLineBytes, as the kubelet does.
    const size_t end = nl == std::string::npos || nl - start > kMaxLogLineBytes ? start + kMaxLogLineBytes : nl;
    emit(pending_.substr(start, end - start));
    start = end == nl ? nl + 1 : end;
  }
  pending_.erase(0, start);
}

void TimestampedLogWriter::flush_partial() {
  if (!pending_.empty()) emit(pending_);
  pending_.clear();
}

void TimestampedLogWriter::note(const std::string& line) {
  flush_partial();
  emit(line);
}

void read_log(const std::filesystem::path& path, const LogOptions& opts,
              const std::function<bool(const std::string&)>& line_filter,
              const std::function<bool()>& finished, std::ostream& out) {
  const int64_t since_ms = opts.since_seconds > 0 ? now_unix_ms() - opts.since_seconds * 1000 : 0;
  auto print = [&](const std::string& record) {
    std::string text = record.substr(stamp_length(record));
    if (line_filter && !line_filter(text)) return false;
    if (since_ms && line_time_ms(record) < since_ms) return false;
    return true;
  };
  auto render = [&](const std::string& record) {
    out << (opts.timestamps ? record : record.substr(stamp_length(record))) << "\n";
    return true;
  };
  auto shown = [&](const std::string& record) { return print(record) && render(record); };

  // First pass: everything written so far, or its last `tail` lines read from the end.
  off_t consumed = 0;
  if (opts.tail >= 0) {
    for (const auto& l : tail_of_log(path, opts.tail, print, consumed)) render(l);
  } else {
    LogCursor(rotated_log_path(path), 0).each_line(shown, true);
  }
  auto cursor = std::make_unique<LogCursor>(path, consumed);
  if (opts.tail < 0) cursor->each_line(shown, false);
  out.flush();
  if (!opts.follow) return;

  // Follow: poll for new complete lines until the job has finished and the file is drained;
  // after a rotation, the rest of the old file, then the new one from its start.
  for (;;) {
    bool done = finished();
    cursor->each_line(shown, false);
    if (cursor->replaced(path)) {
      cursor->each_line(shown, true);
      cursor = std::make_unique<LogCursor>(path, 0);
      cursor->each_line(shown, false);
    }
    out.flush();
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace lane::submit::local
