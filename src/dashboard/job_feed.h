#pragma once
// The jobs list as a feed for /api/events. One thread polls the backend (through `list`) every
// `interval`, but only while at least one viewer (an open event stream) is attached; with none it
// sleeps. Each job is kept as its serialized list document; a poll whose jobs are all byte-equal
// to the previous ones changes nothing, else the version goes up and the change is kept as a
// delta ({"upsert": [job...], "remove": ["project/name"...]}) besides the full document, so an
// open stream is sent only what changed. A poll that takes long stretches the interval (to twice
// its duration) so a very large list cannot keep a core busy.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace lane::dashboard {

struct JobEntry {
  std::string key;   // "project/name"
  std::string json;  // the job's list document, serialized (no newline)
};
using JobLister = std::function<std::vector<JobEntry>()>;

class JobFeed {
 public:
  // `max_deltas`: how many recent changes are kept for streams that fall behind (older: full).
  JobFeed(JobLister list, std::chrono::milliseconds interval, size_t max_deltas = 32);
  ~JobFeed();  // stops the poller
  JobFeed(const JobFeed&) = delete;
  JobFeed& operator=(const JobFeed&) = delete;

  using Text = std::shared_ptr<const std::string>;
  struct Delta {
    uint64_t version = 0;  // the version this delta leads to
    Text document;         // {"upsert":[...],"remove":[...]}
  };
  // What a stream that has sent version `seen` sends next: nothing (version == seen), the deltas
  // from `seen` on, or (seen == 0, or the deltas no longer reach back) the full document.
  struct Update {
    uint64_t version = 0;
    Text full;                  // the JSON array of every job, when set
    std::vector<Delta> deltas;  // in order, when `full` is not set
  };

  // An open event stream, for as long as it lives: the feed polls while any exists. A viewer
  // that attaches to an idle feed gets nothing older than a poll started after it attached.
  class Viewer {
   public:
    explicit Viewer(JobFeed& feed);
    ~Viewer();
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;
    // Waits up to `timeout` for something newer than `seen` (see Update).
    Update wait_update(uint64_t seen, std::chrono::milliseconds timeout);

   private:
    JobFeed& feed_;
    uint64_t min_poll_;
  };

  void stop();
  bool stopped();
  void wait_stopped();  // blocks until stop()
  uint64_t polls();     // polls done so far (tests)

 private:
  void poll_loop();
  void apply(std::vector<JobEntry> entries);  // with mutex_ held

  JobLister list_;
  std::chrono::milliseconds interval_;
  size_t max_deltas_;
  std::mutex mutex_;
  std::condition_variable changed_;  // a new version, a finished poll, stop
  std::condition_variable wake_;     // a viewer attached, stop
  size_t viewers_ = 0;
  uint64_t polls_started_ = 0;
  uint64_t polls_done_ = 0;
  uint64_t want_poll_ = 0;  // the poll a viewer that attached to an idle feed waits for
  uint64_t version_ = 0;  // 0: nothing polled yet
  std::vector<std::string> order_;                   // keys in the backend's order
  std::unordered_map<std::string, std::string> jobs_;  // key -> serialized job
  Text full_;
  std::deque<Delta> deltas_;
  std::string last_error_;
  bool stop_ = false;
  std::thread poller_;
};

}  // namespace lane::dashboard
