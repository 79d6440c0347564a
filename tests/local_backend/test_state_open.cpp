// Many processes open the local state at once (a burst of `lanectl submit`): each connection's
// switch to WAL must wait for the others, never fail with "database is locked". SQLite answers
// SQLITE_BUSY without calling the busy handler when two connections would deadlock on that
// switch, so Database retries it; without the retry about one round in thirty fails here.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "submit/local/state/sqlite_db.h"

namespace fs = std::filesystem;
using lane::submit::local::Database;

namespace {

// Releases every waiting thread at once, so that the opens overlap as much as they can.
class StartLine {
 public:
  explicit StartLine(int n) : left_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (--left_ == 0) {
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [this] { return left_ == 0; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int left_;
};

}  // namespace

TEST_CASE("local state: 24 connections opening a new state at once all switch it to WAL", "[local_backend][slow]") {
  char tmpl[] = "/tmp/lanectl-state-open-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir = tmpl;
  constexpr int kRounds = 60;
  constexpr int kConnections = 24;
  std::atomic<int> failures{0};
  std::string first_error;
  std::mutex error_mutex;
  for (int round = 0; round < kRounds; ++round) {
    const fs::path db = dir / ("state-" + std::to_string(round) + ".db");
    StartLine start(kConnections);
    std::vector<std::thread> threads;
    for (int i = 0; i < kConnections; ++i) {
      threads.emplace_back([&] {
        start.wait();
        try {
          Database opened(db);
        } catch (const std::exception& e) {
          ++failures;
          std::lock_guard<std::mutex> lock(error_mutex);
          if (first_error.empty()) first_error = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  INFO("first error: " << first_error);
  CHECK(failures == 0);
}
