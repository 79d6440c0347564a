#include "train/download/download_http.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <curl/curl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "common/error.h"

namespace lane::data {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return fmt::format("{:.1f} {}", b, units[u]);
}

// State of one HTTP request, shared with the libcurl callbacks.
struct Transfer {
  const FetchOptions* options = nullptr;
  CURL* curl = nullptr;
  fs::path partial;
  uint64_t offset = 0;       // bytes already on disk when the request started
  std::FILE* file = nullptr;  // opened on the first body byte, once the status is known
  long status = 0;
  uint64_t received = 0;     // body bytes of this request
  int64_t content_length = -1, range_total = -1;  // headers of the final response
  int64_t total = -1;        // whole-file size, known once the response is in
  bool write_failed = false;
  Clock::time_point started = Clock::now(), last_report = started;
};

// Parses "Content-Range: bytes a-b/total" and "Content-Length: n" of the final response.
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  std::string lower = line;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("http/", 0) == 0) t->content_length = t->range_total = -1;  // next response (redirect)
  long long a = 0, b = 0, n = 0;
  if (std::sscanf(lower.c_str(), "content-range: bytes %lld-%lld/%lld", &a, &b, &n) == 3 ||
      std::sscanf(lower.c_str(), "content-range: bytes */%lld", &n) == 1)
    t->range_total = n;
  else if (std::sscanf(lower.c_str(), "content-length: %lld", &n) == 1)
    t->content_length = n;
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->file) {
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
    if (t->status == 200) {
      // The server ignored (or we did not send) a Range header: start from scratch.
      t->offset = 0;
      t->total = t->content_length;
      t->file = std::fopen(t->partial.c_str(), "wb");
    } else if (t->status == 206) {
      t->total = t->range_total;
      t->file = std::fopen(t->partial.c_str(), "ab");
    } else {
      return size * count;  // an error page: swallow it, the status is reported afterwards
    }
    if (!t->file) {
      t->write_failed = true;
      return 0;
    }
  }
  if (std::fwrite(data, size, count, t->file) != count) {
    t->write_failed = true;
    return 0;
  }
  t->received += size * count;
  return size * count;
}

void report(Transfer& t, bool final_line) {
  const auto now = Clock::now();
  if (!final_line && now - t.last_report < std::chrono::seconds(2)) return;
  t.last_report = now;
  const double secs = std::chrono::duration<double>(now - t.started).count();
  const double have = static_cast<double>(t.offset + t.received);
  const std::string rate = human_bytes(secs > 0 ? t.received / secs : 0) + "/s";
  if (t.total > 0)
    std::cerr << fmt::format("{}: {} / {} ({:.1f}%) {}\n", t.options->label, human_bytes(have),
                             human_bytes(static_cast<double>(t.total)), 100.0 * have / t.total, rate);
  else
    std::cerr << fmt::format("{}: {} {}\n", t.options->label, human_bytes(have), rate);
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->options->progress && t->file) report(*t, false);
  return 0;
}

void close_synced(Transfer& t) {
  if (!t.file) return;
  std::fflush(t.file);
  ::fsync(fileno(t.file));
  std::fclose(t.file);
  t.file = nullptr;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};

enum class Outcome { kComplete, kRetry };

// One HTTP request. Throws for errors a retry cannot fix.
Outcome attempt(const std::string& url, Transfer& t, std::string& why) {
  CURL* curl = curl_easy_init();
  if (!curl) throw Error("cannot initialise libcurl");
  t.curl = curl;
  char errbuf[CURL_ERROR_SIZE] = {0};
  const std::string range = fmt::format("{}-", t.offset);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, t.options->connect_timeout_s);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, t.options->stall_timeout_s);
  if (t.offset > 0) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &t.status);
  curl_easy_cleanup(curl);
  t.total = t.status == 200 ? t.content_length : t.range_total;
  t.curl = nullptr;
  close_synced(t);
  if (t.options->progress && t.received > 0) report(t, true);

  if (t.write_failed) throw Error(fmt::format("cannot write '{}' (disk full or not writable?)", t.partial.string()));
  if (t.status == 416 && t.total >= 0 && static_cast<int64_t>(t.offset) == t.total)
    return Outcome::kComplete;  // we already had every byte
  if (t.status == 416) {
    fs::remove(t.partial);  // the partial file is longer than the remote one: start over
    why = "the server refused to resume (HTTP 416)";
    return Outcome::kRetry;
  }
  if (t.status >= 400 && t.status < 500)
    throw Error(fmt::format("HTTP {} for {}; check --base-url and the archive name", t.status, url));
  if (t.status >= 500) {
    why = fmt::format("HTTP {} from the server", t.status);
    return Outcome::kRetry;
  }
  if (rc != CURLE_OK) {
    why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT || rc == CURLE_COULDNT_RESOLVE_HOST)
      throw Error(fmt::format("cannot download {}: {}", url, why));
    return Outcome::kRetry;
  }
  if (t.status != 200 && t.status != 206)
    throw Error(fmt::format("unexpected HTTP {} for {}", t.status, url));
  return Outcome::kComplete;
}

}  // namespace

FetchResult fetch_resumable(const std::string& url, const fs::path& partial, const FetchOptions& options) {
  static CurlGlobal global;
  if (!partial.parent_path().empty()) fs::create_directories(partial.parent_path());
  FetchResult result;
  std::string why;
  for (int attempt_no = 0; attempt_no <= options.retries; ++attempt_no) {
    if (attempt_no > 0) {
      std::cerr << fmt::format("{}: {}; retrying ({}/{}) from byte {}\n", options.label, why, attempt_no,
                               options.retries, fs::exists(partial) ? fs::file_size(partial) : 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(options.retry_delay_ms * attempt_no));
    }
    Transfer t;
    t.options = &options;
    t.partial = partial;
    t.offset = fs::exists(partial) ? fs::file_size(partial) : 0;
    if (attempt_no == 0 && t.offset > 0 && options.progress)
      std::cerr << fmt::format("{}: resuming from byte {}\n", options.label, t.offset);
    ++result.attempts;
    if (attempt(url, t, why) == Outcome::kRetry) continue;
    result.bytes = fs::exists(partial) ? fs::file_size(partial) : 0;
    result.total = t.total;
    if (t.total >= 0 && static_cast<int64_t>(result.bytes) != t.total) {
      why = fmt::format("got {} of {} bytes", result.bytes, t.total);
      if (static_cast<int64_t>(result.bytes) > t.total) fs::remove(partial);  // cannot be resumed
      continue;
    }
    if (!fs::exists(partial)) {  // an empty body never opened the file
      std::FILE* f = std::fopen(partial.c_str(), "wb");
      if (!f) throw Error(fmt::format("cannot create '{}'", partial.string()));
      std::fclose(f);
    }
    return result;
  }
  throw Error(fmt::format("downloading {} failed: {}; {} bytes are kept in '{}', run the command again to resume",
                          url, why, fs::exists(partial) ? fs::file_size(partial) : 0, partial.string()));
}

}  // namespace lane::data
