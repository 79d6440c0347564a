#include "train/download/download_http.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "net/file_get.h"
#include "net/redact.h"

namespace lane::data {
namespace fs = std::filesystem;
namespace {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return fmt::format("{:.1f} {}", b, units[u]);
}

// "train_set.zip: 12.0 MiB / 48.0 MiB (25.0%) 3.1 MiB/s": at most every 2 s, and after each attempt.
class ProgressLines {
 public:
  explicit ProgressLines(const std::string& label) : label_(label) {}

  void operator()(const net::FileGetProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (!p.attempt_done && now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(p.elapsed).count();
    const double have = static_cast<double>(p.have);
    const std::string rate = human_bytes(secs > 0 ? p.received / secs : 0) + "/s";
    if (p.total > 0)
      std::cerr << fmt::format("{}: {} / {} ({:.1f}%) {}\n", label_, human_bytes(have),
                               human_bytes(static_cast<double>(p.total)), 100.0 * have / p.total, rate);
    else
      std::cerr << fmt::format("{}: {} {}\n", label_, human_bytes(have), rate);
  }

 private:
  std::string label_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

net::FileGetOptions file_get_options(const FetchOptions& options) {
  net::FileGetOptions o;
  o.connect_timeout_s = options.connect_timeout_s;
  o.stall_timeout_s = options.stall_timeout_s;
  o.retry.max_attempts = options.retries + 1;
  o.retry.base_delay = std::chrono::milliseconds(options.retry_delay_ms);
  o.retry.max_delay = std::max(o.retry.max_delay, o.retry.base_delay * 8);
  if (options.progress) o.on_progress = ProgressLines(options.label);
  o.on_retry = [&options](const std::string& why, uint64_t from_byte, int next_attempt) {
    std::cerr << fmt::format("{}: {}; retrying ({}/{}) from byte {}\n", options.label, why, next_attempt - 1,
                             options.retries, from_byte);
  };
  return o;
}

}  // namespace

FetchResult fetch_resumable(const std::string& url, const fs::path& partial, const FetchOptions& options) {
  const uint64_t kept = fs::exists(partial) ? fs::file_size(partial) : 0;
  if (kept > 0 && options.progress) std::cerr << fmt::format("{}: resuming from byte {}\n", options.label, kept);
  const net::FileGetResult got = net::get_to_file(url, partial, file_get_options(options));
  const std::string shown = net::redact_url(url);
  if (got.complete) return {got.bytes, got.total, got.attempts};
  if (got.status >= 400 && got.status < 500 && got.status != 416 && got.status != 429)
    throw Error(fmt::format("HTTP {} for {}; check --base-url and the archive name", got.status, shown));
  if (got.permanent) throw Error(fmt::format("cannot download {}: {}", shown, got.why));
  throw Error(fmt::format("downloading {} failed: {}; {} bytes are kept in '{}', run the command again to resume",
                          shown, got.why, got.bytes, partial.string()));
}

}  // namespace lane::data
