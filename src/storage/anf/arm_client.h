#pragma once
// A small Azure Resource Manager client over lane_net: OAuth2 client-credentials token (cached
// until shortly before expiry, fetched again once on a 401), api-version pinned per request,
// 429/5xx retried by lane_net's retry loop (backoff that honours Retry-After; POST only when the
// server certainly did not act), and long-running operations followed
// (Azure-AsyncOperation, else Location) to a final state with progress on a stream.
// Paths are ARM resource ids ("/subscriptions/..."); absolute URLs (nextLink, LRO) must point
// at the configured ARM base, so the bearer token never goes anywhere else.
#include <chrono>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "net/http.h"
#include "net/retry.h"
#include "net/transport.h"
#include "storage/anf/anf_options.h"

namespace lane::storage::anf {

using Json = nlohmann::json;

// An ARM or token-endpoint failure: HTTP status plus the error body's code and message.
class ArmError : public Error {
 public:
  ArmError(long status, std::string code, std::string message, const std::string& text)
      : Error(text), status_(status), code_(std::move(code)), message_(std::move(message)) {}
  long status() const { return status_; }
  const std::string& code() const { return code_; }
  const std::string& arm_message() const { return message_; }

 private:
  long status_;
  std::string code_, message_;
};

class ArmClient {
 public:
  // `progress` receives one line per LRO poll (nullptr: silent).
  ArmClient(AnfOptions options, std::ostream* progress);
  ~ArmClient();
  ArmClient(const ArmClient&) = delete;
  ArmClient& operator=(const ArmClient&) = delete;

  const AnfOptions& options() const { return options_; }

  Json get(const std::string& id);
  std::optional<Json> try_get(const std::string& id);  // nullopt on 404
  std::vector<Json> list(const std::string& collection_id);  // all pages (nextLink)
  // PUT, then follow the operation; returns the resource as read back at the end.
  Json put(const std::string& id, const Json& body, const std::string& what);
  // POST an action (revert, poolChange) and follow the operation.
  void post_action(const std::string& id, const std::string& action, const Json& body,
                   const std::string& what);
  // DELETE and follow; a 404/204 counts as already gone.
  void remove(const std::string& id, const std::string& what);

  int token_requests() const { return token_requests_; }  // for tests of the token cache

 private:
  net::Request request_to(const std::string& method, const std::string& url, const std::string& body) const;
  net::Outcome call(const std::string& method, const std::string& url, const std::string& body);
  void follow(const net::Outcome& first, const std::string& method, const std::string& id,
              const std::string& what);
  std::string url_for(const std::string& id_or_url) const;
  const std::string& token(bool force_refresh);
  [[noreturn]] void fail(const std::string& method, const std::string& id, const net::Outcome& r) const;
  std::string scrub(std::string text) const;

  AnfOptions options_;
  std::ostream* progress_;
  net::RetryPolicy retry_;
  net::Transport transport_;  // one connection, reused (keep-alive)
  std::string token_;
  std::chrono::steady_clock::time_point token_expiry_{};
  int token_requests_ = 0;
};

}  // namespace lane::storage::anf
