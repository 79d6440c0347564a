#include "dashboard/job_feed.h"

#include <algorithm>
#include <iostream>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace lane::dashboard {

JobFeed::JobFeed(JobLister list, std::chrono::milliseconds interval, size_t max_deltas)
    : list_(std::move(list)), interval_(interval), max_deltas_(max_deltas) {
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
  wake_.notify_all();
}

bool JobFeed::stopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stop_;
}

void JobFeed::wait_stopped() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return stop_; });
}

uint64_t JobFeed::polls() {
  std::lock_guard<std::mutex> lock(mutex_);
  return polls_done_;
}

JobFeed::Viewer::Viewer(JobFeed& feed) : feed_(feed), min_poll_(0) {
  std::lock_guard<std::mutex> lock(feed_.mutex_);
  // An idle feed's list may be old: wait for a poll that starts from now on.
  if (feed_.viewers_ == 0) {
    min_poll_ = feed_.polls_started_ + 1;
    feed_.want_poll_ = std::max(feed_.want_poll_, min_poll_);
  }
  ++feed_.viewers_;
  feed_.wake_.notify_all();
}

JobFeed::Viewer::~Viewer() {
  std::lock_guard<std::mutex> lock(feed_.mutex_);
  --feed_.viewers_;
}

JobFeed::Update JobFeed::Viewer::wait_update(uint64_t seen, std::chrono::milliseconds timeout) {
  JobFeed& f = feed_;
  std::unique_lock<std::mutex> lock(f.mutex_);
  f.changed_.wait_for(lock, timeout,
                      [&] { return f.stop_ || (f.polls_done_ >= min_poll_ && f.version_ != 0 && f.version_ != seen); });
  Update u;
  u.version = seen;
  if (f.stop_ || f.polls_done_ < min_poll_ || f.version_ == 0 || f.version_ == seen) return u;
  u.version = f.version_;
  bool reachable = seen != 0 && !f.deltas_.empty() && f.deltas_.front().version <= seen + 1 && seen < f.version_;
  if (!reachable) {
    u.full = f.full_;
    return u;
  }
  for (const auto& d : f.deltas_)
    if (d.version > seen) u.deltas.push_back(d);
  return u;
}

void JobFeed::apply(std::vector<JobEntry> entries) {
  std::vector<const std::string*> upserts;
  std::unordered_map<std::string, std::string> next;
  next.reserve(entries.size());
  std::vector<std::string> order;
  order.reserve(entries.size());
  for (auto& e : entries) {
    auto it = jobs_.find(e.key);
    bool same = it != jobs_.end() && it->second == e.json;
    auto [slot, inserted] = next.emplace(e.key, std::move(e.json));
    if (!inserted) continue;  // a backend listing one job twice: the first one counts
    order.push_back(std::move(e.key));
    if (!same) upserts.push_back(&slot->second);
  }
  std::vector<const std::string*> removed;
  for (const auto& key : order_)
    if (!next.count(key)) removed.push_back(&key);
  if (version_ != 0 && upserts.empty() && removed.empty()) {
    order_ = std::move(order);  // at most the order changed: not worth an event
    return;
  }

  size_t bytes = 2;
  for (const auto& key : order) bytes += next[key].size() + 1;
  auto full = std::make_shared<std::string>();
  full->reserve(bytes);
  *full += '[';
  for (size_t i = 0; i < order.size(); ++i) {
    if (i) *full += ',';
    *full += next[order[i]];
  }
  *full += ']';

  if (version_ != 0) {
    auto delta = std::make_shared<std::string>("{\"upsert\":[");
    for (size_t i = 0; i < upserts.size(); ++i) {
      if (i) *delta += ',';
      *delta += *upserts[i];
    }
    *delta += "],\"remove\":[";
    for (size_t i = 0; i < removed.size(); ++i) {
      if (i) *delta += ',';
      *delta += nlohmann::json(*removed[i]).dump();
    }
    *delta += "]}";
    deltas_.push_back({version_ + 1, std::move(delta)});
    while (deltas_.size() > max_deltas_) deltas_.pop_front();
  }
  ++version_;
  full_ = std::move(full);
  jobs_ = std::move(next);
  order_ = std::move(order);
}

void JobFeed::poll_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait(lock, [&] { return stop_ || viewers_ > 0; });
    if (stop_) break;
    ++polls_started_;
    lock.unlock();
    auto started = std::chrono::steady_clock::now();
    std::vector<JobEntry> entries;
    std::string error;
    try {
      entries = list_();
    } catch (const std::exception& e) {
      error = e.what();
    }
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    lock.lock();
    if (!error.empty()) {
      // Said once per distinct failure; the stream keeps the last good list.
      if (error != last_error_) std::cerr << "dashboard: listing jobs failed: " << error << "\n";
      last_error_ = error;
    } else {
      last_error_.clear();
      apply(std::move(entries));
    }
    polls_done_ = polls_started_;
    changed_.notify_all();
    // A viewer that attached to an idle feed (also during this poll) waits for a new poll: go now.
    auto pause = std::max(interval_, 2 * took);
    wake_.wait_for(lock, pause, [&] { return stop_ || want_poll_ > polls_started_; });
  }
}

}  // namespace lane::dashboard
