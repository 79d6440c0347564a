#pragma once
// A resumable download of one URL into a file. Each GET continues from the bytes already in the
// file ("Range: bytes=N-"), guarded by "If-Range" with the validator the server gave for them
// (a strong ETag, else Last-Modified), which is kept beside the file (FILE.validator) so a later
// run can resume too. The file is restarted from byte 0 when the server sends the whole body
// (200: it ignores ranges, or If-Range found the remote file changed), when a 206 names another
// validator or size than the kept bytes came with, or when it refuses the range (416) for a
// file of another size. An interrupted body is resumed by the one retry loop (retry.h).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "net/retry.h"
#include "net/tls.h"

namespace lane::net {

struct FileGetProgress {
  uint64_t have = 0;      // bytes in the file
  int64_t total = -1;     // size of the whole file; -1 while unknown
  uint64_t received = 0;  // bytes of this attempt
  std::chrono::steady_clock::duration elapsed{};  // since this attempt began
  bool attempt_done = false;  // the last report of an attempt that received bytes
};

struct FileGetOptions {
  TlsOptions tls;
  long connect_timeout_s = 30;
  long stall_timeout_s = 120;  // an attempt fails (and is retried) under 1 byte/s for this long
  RetryPolicy retry;
  std::function<void(const FileGetProgress&)> on_progress;  // after each chunk written
  // Before each retry: why the attempt failed, the byte it resumes from, the next attempt's number.
  std::function<void(const std::string& why, uint64_t from_byte, int next_attempt)> on_retry;
};

struct FileGetResult {
  bool complete = false;
  uint64_t bytes = 0;  // size of the file
  int64_t total = -1;  // size the server announced (-1 when unknown)
  int attempts = 0;    // GET requests, restarts included
  long status = 0;     // the last HTTP status (0: no answer)
  bool permanent = false;  // not complete, and retrying cannot help (a malformed URL, an unknown scheme)
  std::string why;     // not complete: what went wrong last
};

// Downloads `url` into `file` (its folder is created), appending to what is there. Complete
// means the server delivered the whole body, checked against Content-Length / Content-Range;
// FILE.validator is removed then. Throws lane::Error only when the file cannot be written.
FileGetResult get_to_file(const std::string& url, const std::filesystem::path& file, const FileGetOptions& options);

}  // namespace lane::net
