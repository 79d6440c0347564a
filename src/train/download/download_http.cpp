#include "train/download/download_http.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/progress.h"
#include "net/file_get.h"
#include "net/redact.h"

namespace lane::data {
namespace fs = std::filesystem;
namespace {

// Progress goes to the one reporter (common/progress.h): a redrawn line with the rate and ETA on
// a terminal, a summary line elsewhere; retries are lines of their own.
net::FileGetOptions file_get_options(const FetchOptions& options, ProgressReporter& progress) {
  net::FileGetOptions o;
  o.connect_timeout_s = options.connect_timeout_s;
  o.stall_timeout_s = options.stall_timeout_s;
  o.retry.max_attempts = options.retries + 1;
  o.retry.base_delay = std::chrono::milliseconds(options.retry_delay_ms);
  o.retry.max_delay = std::max(o.retry.max_delay, o.retry.base_delay * 8);
  o.on_progress = [&progress](const net::FileGetProgress& p) {
    if (p.total > 0) progress.set_total(static_cast<uint64_t>(p.total), 0);
    progress.set_done(p.have, 0);
  };
  o.on_retry = [&options, &progress](const std::string& why, uint64_t from_byte, int next_attempt) {
    progress.message(fmt::format("{}: {}; retrying ({}/{}) from byte {}", options.label, why, next_attempt - 1,
                                 options.retries, from_byte));
  };
  return o;
}

}  // namespace

FetchResult fetch_resumable(const std::string& url, const fs::path& partial, const FetchOptions& options) {
  const uint64_t kept = fs::exists(partial) ? fs::file_size(partial) : 0;
  ProgressReporter progress(std::cerr, ProgressReporter::mode_for(std::cerr, !options.progress), options.label);
  if (kept > 0 && options.progress) {
    progress.message(fmt::format("{}: resuming from byte {}", options.label, kept));
  }
  progress.set_done(kept, 0, /*counted=*/false);  // bytes of an earlier run: not part of this one's rate
  const net::FileGetResult got = net::get_to_file(url, partial, file_get_options(options, progress));
  const std::string shown = net::redact_url(url);
  if (got.complete) {
    progress.finish();
    return {got.bytes, got.total, got.attempts};
  }
  if (got.status >= 400 && got.status < 500 && got.status != 416 && got.status != 429)
    throw Error(fmt::format("HTTP {} for {}; check --base-url and the archive name", got.status, shown));
  if (got.permanent) throw Error(fmt::format("cannot download {}: {}", shown, got.why));
  throw Error(fmt::format("downloading {} failed: {}; {} bytes are kept in '{}', run the command again to resume",
                          shown, got.why, got.bytes, partial.string()));
}

}  // namespace lane::data
