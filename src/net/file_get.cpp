#include "net/file_get.h"

#include <cstdio>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "net/transport.h"

namespace lane::net {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// What the bytes in the file came with: the server's validator and the whole size.
struct Kept {
  std::string validator;
  int64_t total = -1;
};

fs::path kept_path(const fs::path& file) { return fs::path(file.string() + ".validator"); }

Kept read_kept(const fs::path& file) {
  Kept k;
  if (!fs::exists(kept_path(file))) return k;
  std::istringstream in(read_file(kept_path(file)));
  std::getline(in, k.validator);
  if (!(in >> k.total)) k.total = -1;
  return k;
}

// The If-Range validator of an answer: a strong ETag (a weak one may not be used), else Last-Modified.
std::string validator_of(const Response& r) {
  const std::string etag = r.header("etag");
  if (!etag.empty() && etag.rfind("W/", 0) != 0) return etag;
  return r.header("last-modified");
}

// "bytes a-b/N" (206) or "bytes */N" (416): {a, N}; -1 for what is absent or "*".
std::pair<int64_t, int64_t> content_range(const Response& r) {
  const std::string v = r.header("content-range");
  long long a = -1, b = -1, n = -1;
  if (std::sscanf(v.c_str(), "bytes %lld-%lld/%lld", &a, &b, &n) == 3) return {a, n};
  if (std::sscanf(v.c_str(), "bytes %lld-%lld/*", &a, &b) == 2) return {a, -1};
  if (std::sscanf(v.c_str(), "bytes */%lld", &n) == 1) return {-1, n};
  return {-1, -1};
}

int64_t content_length(const Response& r) {
  const std::string v = r.header("content-length");
  long long n = -1;
  return std::sscanf(v.c_str(), "%lld", &n) == 1 ? n : -1;
}

uint64_t size_of(const fs::path& file) { return fs::exists(file) ? fs::file_size(file) : 0; }

void forget(const fs::path& file) {
  fs::remove(file);
  fs::remove(kept_path(file));
}

// One download across its attempts.
class FileGet {
 public:
  FileGet(const std::string& url, const fs::path& file, const FileGetOptions& options)
      : url_(url), file_(file), options_(options) {}

  Outcome attempt();
  bool complete() const { return complete_; }
  int64_t total() const { return total_; }
  int requests() const { return requests_; }
  const std::string& why() const { return why_; }

 private:
  Outcome get();                          // one GET from the file's current size
  bool start(const Response& head);       // on_head: open the file for this answer
  bool write(std::string_view data);      // on_data
  void close_synced();
  Outcome finish(Outcome out);            // classify a finished GET

  const std::string url_;
  const fs::path file_;
  const FileGetOptions& options_;
  Transport transport_;
  std::FILE* out_ = nullptr;
  uint64_t offset_ = 0, received_ = 0;
  int64_t total_ = -1;
  Kept kept_;
  bool stale_ = false, write_failed_ = false, complete_ = false;
  int requests_ = 0;
  Clock::time_point started_;
  std::string why_;
};

bool FileGet::start(const Response& head) {
  const auto [first, whole] = content_range(head);
  const std::string validator = validator_of(head);
  if (head.status == 206) {
    const bool changed = (!kept_.validator.empty() && !validator.empty() && validator != kept_.validator) ||
                         (kept_.total >= 0 && whole != kept_.total);
    if (changed || first != static_cast<int64_t>(offset_)) {
      stale_ = true;  // the kept bytes belong to another version of the file
      return false;
    }
    total_ = whole;
  } else if (head.status == 200) {
    offset_ = 0;  // the whole body: the server ignores ranges, or the file changed (If-Range)
    total_ = content_length(head);
  } else {
    return true;  // another 2xx: not a file; finish() reports it
  }
  out_ = std::fopen(file_.c_str(), head.status == 206 ? "ab" : "wb");
  if (!out_) {
    write_failed_ = true;
    return false;
  }
  if (head.status == 200 || kept_.validator.empty()) {
    kept_ = {validator, total_};
    write_file_atomic(kept_path(file_), fmt::format("{}\n{}\n", validator, total_));
  }
  return true;
}

bool FileGet::write(std::string_view data) {
  if (!out_) return true;
  if (std::fwrite(data.data(), 1, data.size(), out_) != data.size()) {
    write_failed_ = true;
    return false;
  }
  received_ += data.size();
  if (options_.on_progress)
    options_.on_progress({offset_ + received_, total_, received_, Clock::now() - started_, false});
  return true;
}

void FileGet::close_synced() {
  if (!out_) return;
  std::fflush(out_);
  ::fsync(fileno(out_));
  std::fclose(out_);
  out_ = nullptr;
}

Outcome FileGet::get() {
  offset_ = size_of(file_);
  kept_ = offset_ > 0 ? read_kept(file_) : Kept{};
  received_ = 0;
  total_ = -1;
  stale_ = false;
  started_ = Clock::now();
  Request request;
  request.url = url_;
  request.accept = "*/*";
  request.timeout_s = 0;
  request.connect_timeout_s = options_.connect_timeout_s;
  request.stall_timeout_s = options_.stall_timeout_s;
  request.follow_redirects = true;
  if (offset_ > 0) {
    request.headers.push_back(fmt::format("Range: bytes={}-", offset_));
    if (!kept_.validator.empty()) request.headers.push_back("If-Range: " + kept_.validator);
  }
  request.on_head = [this](const Response& head) { return start(head); };
  request.on_data = [this](std::string_view data) { return write(data); };
  ++requests_;
  Outcome out = transport_.perform(request, options_.tls);
  close_synced();
  if (options_.on_progress && received_ > 0)
    options_.on_progress({offset_ + received_, total_, received_, Clock::now() - started_, true});
  return out;
}

Outcome FileGet::attempt() {
  Outcome out = get();
  const bool refused_range =
      out.response.status == 416 && content_range(out.response).second != static_cast<int64_t>(offset_);
  if (stale_ || refused_range) {  // the kept bytes are of no use: start over at once
    forget(file_);
    out = get();
  }
  return finish(std::move(out));
}

Outcome FileGet::finish(Outcome out) {
  if (write_failed_) throw Error(fmt::format("cannot write '{}' (disk full or not writable?)", file_.string()));
  const long status = out.response.status;
  const uint64_t have = size_of(file_);
  if (out.transport_failed) {
    why_ = out.detail;
    out.streamed_any = false;  // a retry resumes where this one stopped, it repeats nothing
  } else if (status == 416 && content_range(out.response).second == static_cast<int64_t>(have)) {
    total_ = static_cast<int64_t>(have);  // the file was complete already
    complete_ = true;
  } else if (status == 200 || status == 206) {
    if (total_ >= 0 && static_cast<int64_t>(have) != total_) {
      why_ = fmt::format("got {} of {} bytes", have, total_);
      if (static_cast<int64_t>(have) > total_) forget(file_);  // cannot be resumed
      out.transport_failed = out.request_sent = true;
      return out;
    }
    if (!fs::exists(file_)) write_file_atomic(file_, "");  // an empty body never opened it
    complete_ = true;
  } else {
    why_ = status == 416               ? std::string("the server refused to resume (HTTP 416)")
           : status >= 500 || status == 429 ? fmt::format("HTTP {} from the server", status)
                                            : fmt::format("unexpected HTTP {}", status);
  }
  if (complete_) fs::remove(kept_path(file_));
  return out;
}

}  // namespace

FileGetResult get_to_file(const std::string& url, const fs::path& file, const FileGetOptions& options) {
  if (!file.parent_path().empty()) fs::create_directories(file.parent_path());
  FileGet get(url, file, options);
  RetryHooks hooks;
  hooks.on_retry = [&](const Outcome&, std::chrono::milliseconds, int next_attempt) {
    if (options.on_retry) options.on_retry(get.why(), size_of(file), next_attempt);
  };
  const Outcome last = send_with_retries([&] { return get.attempt(); }, true, options.retry, hooks);
  FileGetResult result;
  result.complete = get.complete();
  result.bytes = size_of(file);
  result.total = get.total();
  result.attempts = get.requests();
  result.status = last.response.status;
  result.permanent = !result.complete && last.permanent;
  result.why = result.complete ? std::string() : get.why();
  return result;
}

}  // namespace lane::net
