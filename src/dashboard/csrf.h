#pragma once
// What guards the dashboard's actions (POST) against cross-site request forgery, beside the token:
// a same-origin check of the request's Origin / Sec-Fetch-Site / Referer headers, and a per-session
// CSRF token. GET /api/session opens a session (the HttpOnly, SameSite=Strict cookie
// lanectl_dashboard_session_PORT) and tells the page its CSRF token, which every action sends back in
// the X-CSRF-Token header. Neither value is ever logged; sessions are told apart by their number.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace lane::dashboard {

inline constexpr const char* kSessionCookie = "lanectl_dashboard_session";
inline constexpr const char* kCsrfHeader = "X-CSRF-Token";

// Why a state-changing request does not come from a page of this dashboard ("" when it does).
// `host` is the request's Host header. Origin, when sent, must be http(s)://HOST; else
// Sec-Fetch-Site must be same-origin; else Referer must be a page of http(s)://HOST. A request
// with none of the three is refused: a browser sends Origin with every POST.
std::string cross_site_problem(const std::string& host, const std::string& origin, const std::string& sec_fetch_site,
                               const std::string& referer);

// The sessions of one server: at most `capacity`, the oldest forgotten first.
class Sessions {
 public:
  struct Session {
    std::string id;    // the cookie's value (32 random bytes, hex)
    std::string csrf;  // the CSRF token (32 random bytes, hex)
    uint64_t number;   // 1, 2, ...: what the log names
  };
  explicit Sessions(size_t capacity = 256) : capacity_(capacity) {}

  // The session whose id is one of `ids` (the session cookies a request sent: a browser may send
  // a stale one first), or a new one when there is none (`created` says which).
  Session open(const std::vector<std::string>& ids, bool& created);
  // The number of the session whose id is one of `ids` and whose CSRF token is `csrf`; nullopt
  // when there is none. Compared in constant time (tokens_equal), every session looked at.
  std::optional<uint64_t> check(const std::vector<std::string>& ids, const std::string& csrf) const;

 private:
  size_t capacity_;
  uint64_t next_number_ = 1;
  mutable std::mutex mutex_;
  std::vector<Session> sessions_;  // oldest first
};

}  // namespace lane::dashboard
