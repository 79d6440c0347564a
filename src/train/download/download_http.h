#pragma once
// `scnn-train download`'s transfer of one archive: lane_net's resumable GET (net/file_get.h)
// into a ".part" file, which a later attempt (or a later run) continues; progress and retries
// are reported on stderr.
#include <cstdint>
#include <filesystem>
#include <string>

namespace lane::data {

struct FetchOptions {
  std::string label;          // shown in progress lines, e.g. "train_set.zip"
  int retries = 3;            // extra attempts after an interrupted transfer
  int retry_delay_ms = 2000;  // wait before the first retry; doubled each time, with jitter
  bool progress = true;       // bytes, %, rate, ETA on stderr (common/progress.h)
  long connect_timeout_s = 30;
  long stall_timeout_s = 120;  // abort (and retry) when under 1 byte/s for this long
};

struct FetchResult {
  uint64_t bytes = 0;        // final size of the partial file
  int64_t total = -1;        // size the server announced (-1 when unknown)
  int attempts = 0;          // HTTP requests made
};

// Downloads `url` into `partial`, appending to what is already there. Returns when the server
// has delivered the whole body (size checked against Content-Length / Content-Range when given).
// Throws lane::Error on HTTP errors (naming the status and the URL) or when retries run out;
// the partial file is kept so the next run resumes.
FetchResult fetch_resumable(const std::string& url, const std::filesystem::path& partial, const FetchOptions& options);

}  // namespace lane::data
