#pragma once
// The jobs list as a feed for /api/events: one thread polls the backend (through the Api) every
// `interval` and bumps a version only when the document changed; each event-stream connection
// waits for a version newer than the one it sent.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "dashboard/api.h"

namespace lane::dashboard {

class JobFeed {
 public:
  JobFeed(Api& api, std::chrono::milliseconds interval);
  ~JobFeed();  // stops the poller
  JobFeed(const JobFeed&) = delete;
  JobFeed& operator=(const JobFeed&) = delete;

  struct Snapshot {
    uint64_t version = 0;  // 0: nothing polled yet
    std::string document;  // the JSON array of jobs
  };

  // Waits up to `timeout` for a version other than `seen`; returns the latest snapshot (its
  // version equals `seen` when nothing changed or the feed stopped).
  Snapshot wait_newer(uint64_t seen, std::chrono::milliseconds timeout);

  void stop();
  bool stopped();
  void wait_stopped();  // blocks until stop()

 private:
  void poll_loop();

  Api& api_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Snapshot latest_;
  std::string last_error_;
  bool stop_ = false;
  std::thread poller_;
};

}  // namespace lane::dashboard
