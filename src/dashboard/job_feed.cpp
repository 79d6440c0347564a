#include "dashboard/job_feed.h"

#include <iostream>

namespace lane::dashboard {

JobFeed::JobFeed(Api& api, std::chrono::milliseconds interval) : api_(api), interval_(interval) {
  poller_ = std::thread([this] { poll_loop(); });
}

JobFeed::~JobFeed() {
  stop();
  if (poller_.joinable()) poller_.join();
}

void JobFeed::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_ = true;
  changed_.notify_all();
}

bool JobFeed::stopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stop_;
}

void JobFeed::wait_stopped() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return stop_; });
}

JobFeed::Snapshot JobFeed::wait_newer(uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return stop_ || latest_.version != seen; });
  return latest_;
}

void JobFeed::poll_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    lock.unlock();
    std::string doc, error;
    try {
      doc = api_.jobs_document(std::nullopt).dump();
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    if (!error.empty()) {
      // Said once per distinct failure; the stream keeps the last good list.
      if (error != last_error_) std::cerr << "dashboard: listing jobs failed: " << error << "\n";
      last_error_ = error;
    } else {
      last_error_.clear();
      if (doc != latest_.document || latest_.version == 0) {
        latest_.document = std::move(doc);
        ++latest_.version;
        changed_.notify_all();
      }
    }
    changed_.wait_for(lock, interval_, [&] { return stop_; });
  }
}

}  // namespace lane::dashboard
