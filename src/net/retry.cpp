#include "net/retry.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <thread>

namespace lane::net {
namespace {

std::mt19937_64& rng() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

bool retryable_status(long s) { return s == 429 || s == 500 || s == 502 || s == 503 || s == 504; }

}  // namespace

std::optional<std::chrono::seconds> parse_retry_after(const std::string& value) {
  if (value.empty() || value.size() > 9) return std::nullopt;
  for (char c : value)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::chrono::seconds(std::stol(value));
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt, const Response* response) {
  auto exp = policy.base_delay * (1LL << std::clamp(attempt - 1, 0, 16));
  auto capped = std::min<std::chrono::milliseconds>(exp, policy.max_delay);
  std::uniform_int_distribution<long long> dist(0, capped.count() / 2);
  std::chrono::milliseconds delay(capped.count() / 2 + dist(rng()));
  if (response) {
    if (auto server = parse_retry_after(response->header("retry-after")))
      delay = std::max<std::chrono::milliseconds>(delay, std::min(*server, policy.max_retry_after));
  }
  return delay;
}

bool worth_retrying(const Outcome& out, bool idempotent) {
  if (out.transport_failed) {
    if (out.permanent || out.tls_failure || out.streamed_any) return false;
    return idempotent || !out.request_sent;
  }
  return retryable_status(out.response.status) && (idempotent || out.response.status == 429);
}

Outcome send_with_retries(const std::function<Outcome()>& send_once, bool idempotent,
                          const RetryPolicy& policy, const RetryHooks& hooks) {
  bool reauthenticated = false;
  for (int attempt = 1;; ++attempt) {
    Outcome out = send_once();
    if (!out.transport_failed && out.response.status == 401 && !reauthenticated && hooks.reauthenticate &&
        hooks.reauthenticate()) {
      reauthenticated = true;  // an expired token: send again with the fresh one
      --attempt;
      continue;
    }
    if (attempt >= policy.max_attempts || !worth_retrying(out, idempotent)) return out;
    const auto wait = backoff_delay(policy, attempt, out.transport_failed ? nullptr : &out.response);
    if (hooks.on_retry) hooks.on_retry(out, wait, attempt + 1);
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace lane::net
