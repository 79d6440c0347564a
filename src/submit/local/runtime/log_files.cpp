#include "submit/local/runtime/log_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <deque>
#include <fstream>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"

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

// The offset of the last `lines` complete lines of `in` (a partial last line is not one): read
// backwards in blocks, so a tail costs the bytes it shows, not the whole file.
std::streamoff tail_start(std::ifstream& in, int64_t lines) {
  in.seekg(0, std::ios::end);
  std::streamoff pos = in.tellg();
  int64_t newlines = 0;  // the one ending the last complete line, then one per earlier line
  char block[64 * 1024];
  while (pos > 0) {
    std::streamoff n = std::min<std::streamoff>(pos, sizeof block);
    pos -= n;
    in.seekg(pos);
    if (!in.read(block, n)) return 0;
    for (std::streamoff i = n; i-- > 0;)
      if (block[i] == '\n' && ++newlines == lines + 1) return pos + i + 1;
  }
  return 0;
}

}  // namespace

TimestampedLogWriter::TimestampedLogWriter(const std::filesystem::path& path) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the job log " + path.string());
}
TimestampedLogWriter::~TimestampedLogWriter() {
  flush_partial();
  if (fd_ >= 0) close(fd_);
}

void TimestampedLogWriter::emit(const std::string& line) {
  std::string record = timestamp_now() + " " + line + "\n";
  const char* p = record.data();
  size_t left = record.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n <= 0) return;  // disk full: drop the line rather than kill the job
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void TimestampedLogWriter::write(const char* data, size_t size) {
  pending_.append(data, size);
  size_t start = 0, nl;
  while ((nl = pending_.find('\n', start)) != std::string::npos) {
    emit(pending_.substr(start, nl - start));
    start = nl + 1;
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
    std::string text = record.size() > 28 && line_time_ms(record) ? record.substr(28) : record;
    if (line_filter && !line_filter(text)) return false;
    if (since_ms && line_time_ms(record) < since_ms) return false;
    return true;
  };
  auto render = [&](const std::string& record) {
    bool stamped = record.size() > 28 && line_time_ms(record);
    out << (opts.timestamps || !stamped ? record : record.substr(28)) << "\n";
  };

  std::ifstream in(path);
  std::deque<std::string> tail;
  std::string line;
  // First pass: everything written so far, keeping only the last `tail` lines when asked (without
  // a filter, only those lines are read).
  std::streamoff consumed = 0;
  if (in && opts.tail >= 0 && !line_filter && !since_ms) {
    consumed = tail_start(in, opts.tail);
    in.clear();
    in.seekg(consumed);
  }
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a partial last line: read it again once complete
    consumed = in.tellg();
    if (!print(line)) continue;
    if (opts.tail >= 0) {
      tail.push_back(line);
      if (static_cast<int64_t>(tail.size()) > opts.tail) tail.pop_front();
    } else {
      render(line);
    }
  }
  for (const auto& l : tail) render(l);
  out.flush();
  if (!opts.follow) return;

  // Follow: poll for new complete lines until the job has finished and the file is drained.
  for (;;) {
    bool done = finished();
    std::ifstream more(path);
    more.seekg(consumed);
    while (std::getline(more, line)) {
      if (more.eof()) break;
      consumed = more.tellg();
      if (print(line)) render(line);
    }
    out.flush();
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace lane::submit::local
