#pragma once
// The one retry loop of lane_net. A request is sent again only when that is safe and may help:
//   - 429 Too Many Requests: always (the server did not process it);
//   - 500, 502, 503, 504: for idempotent requests only (a POST answered so may have been applied);
//   - a transport failure: unless the URL or TLS setup is wrong (retrying cannot help), part of a
//     streamed body was already delivered, or a non-idempotent request may have reached the server;
//   - 401 once, when the caller can refresh its credential (not counted as an attempt).
// Between attempts it waits an exponential backoff with "equal jitter" (half fixed, half random, so
// clients spread out), capped at max_delay, and at least the server's Retry-After (capped at
// max_retry_after).
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "net/http.h"

namespace lane::net {

struct RetryPolicy {
  int max_attempts = 6;
  std::chrono::milliseconds base_delay{200};
  std::chrono::milliseconds max_delay{8000};
  std::chrono::seconds max_retry_after{60};  // a larger Retry-After is capped here
};

// Retry-After as delay-seconds; nullopt when absent or not a number (the HTTP-date form included).
std::optional<std::chrono::seconds> parse_retry_after(const std::string& value);

// The wait after failed attempt `attempt` (1-based). `response`: the answer, when there was one.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt, const Response* response);

// Whether `outcome` may be sent again (attempts left aside; 401 is the caller's, see RetryHooks).
bool worth_retrying(const Outcome& outcome, bool idempotent);

struct RetryHooks {
  // Called on a 401, at most once per request: refresh the credential and return true to send
  // again. Empty: a 401 is the answer.
  std::function<bool()> reauthenticate;
  // Called before each wait: the failed outcome, the wait, the number of the next attempt.
  std::function<void(const Outcome&, std::chrono::milliseconds, int)> on_retry;
};

// Sends with `send_once` (one attempt per call; it builds the request, so a refreshed credential
// is used) until an outcome that is not retried or the attempts run out, and returns the last
// outcome. Never throws itself; what `send_once` or the hooks throw passes through.
Outcome send_with_retries(const std::function<Outcome()>& send_once, bool idempotent,
                          const RetryPolicy& policy, const RetryHooks& hooks = {});

}  // namespace lane::net
