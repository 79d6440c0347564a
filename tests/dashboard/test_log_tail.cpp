// The log tail the dashboard's Log panel asks for (`stream_logs` with a tail, read_log in the
// local runtime): the same lines as reading the whole file, found from the end, so a tail of a
// huge log reads about the bytes it shows.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "submit/local/runtime/log_files.h"

using lane::submit::LogOptions;
using lane::submit::local::read_log;
namespace fs = std::filesystem;

namespace {

std::string tail_of(const fs::path& path, int64_t lines) {
  LogOptions opts;
  opts.tail = lines;
  std::ostringstream out;
  read_log(path, opts, {}, [] { return true; }, out);
  return out.str();
}

// Bytes this process has read (read(2) and friends) so far.
long long bytes_read() {
  std::ifstream io("/proc/self/io");
  std::string key;
  long long value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return -1;
}

struct TempLog {
  TempLog() : path(fs::temp_directory_path() / ("lane-tail-" + std::to_string(getpid()) + ".log")) {}
  ~TempLog() { fs::remove(path); }
  void write(const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  fs::path path;
};

}  // namespace

TEST_CASE("a log tail gives the last complete lines, as a whole read would", "[dashboard][fast]") {
  TempLog log;
  log.write("a\nb\n\nc\n");
  CHECK(tail_of(log.path, 2) == "\nc\n");
  CHECK(tail_of(log.path, 3) == "b\n\nc\n");
  CHECK(tail_of(log.path, 4) == "a\nb\n\nc\n");
  CHECK(tail_of(log.path, 10) == "a\nb\n\nc\n");
  CHECK(tail_of(log.path, 0) == "");
  log.write("a\nb\npartial");  // the line being written is not shown yet
  CHECK(tail_of(log.path, 1) == "b\n");
  CHECK(tail_of(log.path, 5) == "a\nb\n");
  // Timestamped records show without their stamp.
  log.write("2026-11-22T00:46:03.123456Z one\n2026-11-22T00:46:04.123456Z two\n");
  CHECK(tail_of(log.path, 1) == "two\n");
  log.write("");
  CHECK(tail_of(log.path, 3) == "");
}

TEST_CASE("a blank line a job printed shows as a blank line, not as its timestamp", "[dashboard][fast]") {
  TempLog log;
  log.write("2026-11-22T00:46:03.123456Z one\n2026-11-22T00:46:04.123456Z \n2026-11-22T00:46:05.123456Z two\n");
  CHECK(tail_of(log.path, 2) == "\ntwo\n");
  CHECK(tail_of(log.path, -1) == "one\n\ntwo\n");
  LogOptions stamped;
  stamped.timestamps = true;
  std::ostringstream out;
  read_log(log.path, stamped, {}, [] { return true; }, out);
  CHECK(out.str() == "2026-11-22T00:46:03.123456Z one\n2026-11-22T00:46:04.123456Z \n2026-11-22T00:46:05.123456Z two\n");
}

TEST_CASE("the tail of a 200 MB log reads its end only", "[dashboard][fast]") {
  TempLog log;
  {
    std::ofstream out(log.path, std::ios::binary);
    out.seekp(200LL << 20);  // a sparse hole: 200 MiB of zero bytes without a newline
    out << "\n";
    for (int i = 0; i < 1000; ++i) out << "2026-11-22T00:46:03.123456Z line " << i << "\n";
  }
  REQUIRE(fs::file_size(log.path) > (200LL << 20));
  long long before = bytes_read();
  std::string tail = tail_of(log.path, 200);
  long long read = bytes_read() - before;
  CHECK(tail.rfind("line 800\n", 0) == 0);
  CHECK(tail.size() == 200 * std::string("line 800\n").size());
  INFO("bytes read for the tail: " << read);
  CHECK(read >= 0);
  CHECK(read < (1LL << 20));
}
