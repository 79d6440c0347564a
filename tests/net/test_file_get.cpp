// lane_net's resumable download into a file against the 127.0.0.1 test server: Range and
// If-Range, restarts from byte 0 when the kept bytes are of no use, resumption after an
// interrupted body, progress and retry reports.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "http_test_server.h"
#include "net/file_get.h"

using namespace std::chrono_literals;
using lane::test::HttpTestServer;
using lane::test::ServeOptions;
namespace fs = std::filesystem;
namespace net = lane::net;

namespace {

std::string content(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 7 % 251);
  return s;
}

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("lane-test-file-get-" + std::to_string(::getpid()));
  fs::path file = dir / "data.bin.part";
  fs::path validator = dir / "data.bin.part.validator";
  HttpTestServer server;
  std::string url = server.base_url() + "/data.bin";
  std::string v1 = content(200000, 'a'), v2 = content(200000, 'q');

  Fixture() { fs::remove_all(dir); }
  ~Fixture() { fs::remove_all(dir); }

  static net::FileGetOptions options(int attempts) {
    net::FileGetOptions o;
    o.retry.max_attempts = attempts;
    o.retry.base_delay = 1ms;
    o.retry.max_delay = 2ms;
    return o;
  }
  // A first run that the connection drops after `cut` bytes: the file keeps them.
  void interrupted_run(size_t cut) {
    server.cut_next_response_after(cut);
    const auto r = net::get_to_file(url, file, options(1));
    REQUIRE_FALSE(r.complete);
    REQUIRE(fs::file_size(file) == cut);
  }
};

}  // namespace

TEST_CASE("net file get: a server honouring Range resumes an interrupted body, guarded by If-Range", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1, ServeOptions{"\"v1\""});
  f.interrupted_run(70000);
  CHECK(fs::exists(f.validator));

  const auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  REQUIRE(r.complete);
  CHECK(r.bytes == f.v1.size());
  CHECK(r.total == static_cast<int64_t>(f.v1.size()));
  CHECK(lane::read_file(f.file) == f.v1);
  CHECK_FALSE(fs::exists(f.validator));
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].headers.count("range") == 0);
  CHECK(reqs[1].headers.at("range") == "bytes=70000-");
  CHECK(reqs[1].headers.at("if-range") == "\"v1\"");
}

TEST_CASE("net file get: within one call, retries resume an interrupted body and report it", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1);
  f.server.cut_next_response_after(50000);
  std::vector<std::string> retries;
  std::vector<net::FileGetProgress> progress;
  auto o = Fixture::options(3);
  o.on_retry = [&](const std::string& why, uint64_t from, int next) {
    retries.push_back(why + " @" + std::to_string(from) + " #" + std::to_string(next));
  };
  o.on_progress = [&](const net::FileGetProgress& p) { progress.push_back(p); };
  const auto r = net::get_to_file(f.url, f.file, o);
  REQUIRE(r.complete);
  CHECK(r.attempts == 2);
  CHECK(lane::read_file(f.file) == f.v1);
  REQUIRE(retries.size() == 1);
  CHECK_THAT(retries[0], Catch::Matchers::EndsWith(" @50000 #2"));
  REQUIRE(!progress.empty());
  CHECK(progress.back().attempt_done);
  CHECK(progress.back().have == f.v1.size());
  CHECK(progress.back().received == f.v1.size() - 50000);
  CHECK(progress.back().total == static_cast<int64_t>(f.v1.size()));
  CHECK(f.server.requests()[1].headers.at("range") == "bytes=50000-");
}

TEST_CASE("net file get: a server ignoring Range sends the whole body, which restarts the file from byte 0", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1);
  f.interrupted_run(60000);
  f.server.serve("/data.bin", f.v1, ServeOptions{"", false});
  const auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  REQUIRE(r.complete);
  CHECK(lane::read_file(f.file) == f.v1);  // not the kept bytes followed by the whole body
  CHECK(f.server.requests().size() == 2);
  CHECK(f.server.requests()[1].headers.at("range") == "bytes=60000-");
}

TEST_CASE("net file get: a changed remote file restarts from byte 0 (If-Range answered with the whole body)", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1, ServeOptions{"\"v1\""});
  f.interrupted_run(80000);
  f.server.serve("/data.bin", f.v2, ServeOptions{"\"v2\""});
  const auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  REQUIRE(r.complete);
  CHECK(lane::read_file(f.file) == f.v2);
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[1].headers.at("if-range") == "\"v1\"");
}

TEST_CASE("net file get: a changed remote file restarts from byte 0 when the server ignores If-Range", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1, ServeOptions{"\"v1\""});
  f.interrupted_run(80000);
  // 206 with another ETag: the kept bytes are of the old version, so the range is dropped.
  f.server.serve("/data.bin", f.v2, ServeOptions{"\"v2\"", true, false});
  const auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  REQUIRE(r.complete);
  CHECK(lane::read_file(f.file) == f.v2);
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[1].headers.at("range") == "bytes=80000-");
  CHECK(reqs[2].headers.count("range") == 0);
  CHECK(r.attempts == 2);
}

TEST_CASE("net file get: a changed size restarts from byte 0 without validators", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1);
  f.interrupted_run(80000);
  const std::string longer = f.v1 + "more";
  f.server.serve("/data.bin", longer);
  const auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  REQUIRE(r.complete);
  CHECK(lane::read_file(f.file) == longer);
  CHECK(f.server.requests().size() == 3);
}

TEST_CASE("net file get: a complete file is recognised from the 416 answer, a longer one restarts", "[net][fast]") {
  Fixture f;
  f.server.serve("/data.bin", f.v1);
  fs::create_directories(f.dir);
  lane::write_file_atomic(f.file, f.v1);
  auto r = net::get_to_file(f.url, f.file, Fixture::options(1));
  CHECK(r.complete);
  CHECK(lane::read_file(f.file) == f.v1);
  CHECK(f.server.requests().size() == 1);

  lane::write_file_atomic(f.file, f.v1 + "junk");
  r = net::get_to_file(f.url, f.file, Fixture::options(1));
  CHECK(r.complete);
  CHECK(lane::read_file(f.file) == f.v1);
  CHECK(f.server.requests().size() == 3);  // 416 for the longer file, then the whole body
}

TEST_CASE("net file get: 5xx is retried, 404 is not, and neither touches the file", "[net][fast]") {
  Fixture f;
  f.server.script("/data.bin", {503, {{"Retry-After", "0"}}, "busy"});
  f.server.serve("/data.bin", f.v1);
  std::vector<std::string> why;
  auto o = Fixture::options(2);
  o.on_retry = [&](const std::string& w, uint64_t, int) { why.push_back(w); };
  auto r = net::get_to_file(f.url, f.file, o);
  CHECK(r.complete);
  CHECK(why == std::vector<std::string>{"HTTP 503 from the server"});
  CHECK(lane::read_file(f.file) == f.v1);

  r = net::get_to_file(f.server.base_url() + "/missing", f.dir / "missing.part", o);
  CHECK_FALSE(r.complete);
  CHECK(r.status == 404);
  CHECK(r.attempts == 1);
  CHECK_FALSE(fs::exists(f.dir / "missing.part"));
}
