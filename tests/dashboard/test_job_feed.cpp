// JobFeed (the poller behind /api/events): idle without viewers, the whole list first, then only
// the changes as deltas, nothing for an unchanged list, the whole list again for a stream that
// fell behind the kept deltas, and the last good list kept when listing fails.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dashboard/job_feed.h"

using namespace lane::dashboard;
using namespace std::chrono_literals;

namespace {

// A backend stand-in: the list a test sets, how often it was listed.
struct FakeList {
  std::mutex mutex;
  std::vector<JobEntry> jobs;
  std::atomic<int> calls{0};
  bool fail = false;

  void set(std::vector<JobEntry> j) {
    std::lock_guard<std::mutex> lock(mutex);
    jobs = std::move(j);
  }
  JobLister lister() {
    return [this] {
      ++calls;
      std::lock_guard<std::mutex> lock(mutex);
      if (fail) throw std::runtime_error("backend down");
      return jobs;
    };
  }
};

JobEntry job(const std::string& name, const std::string& status) {
  return {"p/" + name, R"({"name":")" + name + R"(","project":"p","status":")" + status + R"("})"};
}

// Waits for an update newer than `seen` (a few polls at most).
JobFeed::Update next(JobFeed::Viewer& v, uint64_t seen) {
  for (int i = 0; i < 50; ++i) {
    auto u = v.wait_update(seen, 100ms);
    if (u.version != seen) return u;
  }
  FAIL("no update within 5 s");
  return {};
}

}  // namespace

TEST_CASE("the job feed does not poll while no event stream is open", "[dashboard][fast]") {
  FakeList backend;
  backend.set({job("a", "Running")});
  JobFeed feed(backend.lister(), 20ms);
  std::this_thread::sleep_for(150ms);
  CHECK(backend.calls == 0);
  {
    JobFeed::Viewer viewer(feed);
    auto u = next(viewer, 0);
    REQUIRE(u.full);
    CHECK(*u.full == "[" + job("a", "Running").json + "]");
    std::this_thread::sleep_for(150ms);
    CHECK(backend.calls >= 3);  // polls every 20 ms while viewed
  }
  std::this_thread::sleep_for(60ms);  // a poll under way when the viewer left may finish
  int after = backend.calls;
  std::this_thread::sleep_for(150ms);
  CHECK(backend.calls == after);
}

TEST_CASE("the job feed sends the whole list first, then only what changed", "[dashboard][fast]") {
  FakeList backend;
  backend.set({job("a", "Pending"), job("b", "Running")});
  JobFeed feed(backend.lister(), 10ms);
  JobFeed::Viewer viewer(feed);
  auto first = next(viewer, 0);
  REQUIRE(first.full);
  CHECK(*first.full == "[" + job("a", "Pending").json + "," + job("b", "Running").json + "]");

  // Nothing changes: no new version, however many polls.
  uint64_t polls = feed.polls();
  while (feed.polls() < polls + 3) std::this_thread::sleep_for(5ms);
  CHECK(viewer.wait_update(first.version, 0ms).version == first.version);

  // a changes, c is new, b is gone: one delta with a and c upserted and b removed.
  backend.set({job("a", "Running"), job("c", "Pending")});
  auto second = next(viewer, first.version);
  CHECK_FALSE(second.full);
  REQUIRE(second.deltas.size() == 1);
  CHECK(second.deltas[0].version == second.version);
  CHECK(*second.deltas[0].document == R"({"upsert":[)" + job("a", "Running").json + "," + job("c", "Pending").json +
                                          R"(],"remove":["p/b"]})");

  // A stream that connects now gets the whole current list.
  JobFeed::Viewer late(feed);
  auto fresh = next(late, 0);
  REQUIRE(fresh.full);
  CHECK(*fresh.full == "[" + job("a", "Running").json + "," + job("c", "Pending").json + "]");
}

TEST_CASE("a stream that fell behind the kept deltas gets the whole list, one within them the deltas in order", "[dashboard][fast]") {
  FakeList backend;
  backend.set({job("a", "Pending")});
  JobFeed feed(backend.lister(), 5ms, /*max_deltas=*/2);
  JobFeed::Viewer viewer(feed);
  uint64_t v1 = next(viewer, 0).version;
  const char* statuses[] = {"Running", "Succeeded", "Failed"};
  uint64_t v = v1;
  for (const char* s : statuses) {
    backend.set({job("a", s)});
    v = next(viewer, v).version;
  }
  auto behind = viewer.wait_update(v1, 0ms);  // 3 changes since v1, 2 kept
  CHECK(behind.version == v);
  CHECK(behind.full);
  auto within = viewer.wait_update(v - 2, 0ms);
  CHECK_FALSE(within.full);
  REQUIRE(within.deltas.size() == 2);
  CHECK(within.deltas[0].version == v - 1);
  CHECK(within.deltas[1].document->find("Failed") != std::string::npos);
}

TEST_CASE("a failing backend keeps the last good list and the feed goes on", "[dashboard][fast]") {
  FakeList backend;
  backend.set({job("a", "Running")});
  JobFeed feed(backend.lister(), 5ms);
  JobFeed::Viewer viewer(feed);
  auto first = next(viewer, 0);
  {
    std::lock_guard<std::mutex> lock(backend.mutex);
    backend.fail = true;
  }
  int calls = backend.calls;
  while (backend.calls < calls + 3) std::this_thread::sleep_for(5ms);
  CHECK(viewer.wait_update(first.version, 0ms).version == first.version);
  {
    std::lock_guard<std::mutex> lock(backend.mutex);
    backend.fail = false;
    backend.jobs = {job("a", "Succeeded")};
  }
  auto after = next(viewer, first.version);
  REQUIRE(after.deltas.size() == 1);
  CHECK(after.deltas[0].document->find("Succeeded") != std::string::npos);
}

TEST_CASE("stop ends a waiting viewer at once", "[dashboard][fast]") {
  FakeList backend;
  JobFeed feed(backend.lister(), 10ms);
  JobFeed::Viewer viewer(feed);
  next(viewer, 0);
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    feed.stop();
  });
  auto t0 = std::chrono::steady_clock::now();
  viewer.wait_update(1, 5000ms);
  CHECK(std::chrono::steady_clock::now() - t0 < 2000ms);
  stopper.join();
  CHECK(feed.stopped());
}
