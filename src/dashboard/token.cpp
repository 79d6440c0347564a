#include "dashboard/token.h"

#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>

#include "common/error.h"

namespace lane::dashboard {

std::string generate_token() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("dashboard: the kernel's random source (getrandom) failed; pass a token with --token");
    got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += hex[b >> 4];
    token += hex[b & 15];
  }
  return token;
}

bool tokens_equal(const std::string& expected, const std::string& given) {
  // Every byte of `given` is looked at, whatever the lengths; the length difference is folded in.
  volatile unsigned char diff = expected.size() == given.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i) {
    unsigned char e = expected.empty() ? 0 : static_cast<unsigned char>(expected[i % expected.size()]);
    diff = diff | (e ^ static_cast<unsigned char>(given[i]));
  }
  return !expected.empty() && diff == 0;
}

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::vector<std::string> cookie_values(const std::string& cookie, const std::string& name) {
  std::vector<std::string> values;
  size_t pos = 0;
  while (pos <= cookie.size()) {
    size_t end = cookie.find(';', pos);
    std::string pair = trim(cookie.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    auto eq = pair.find('=');
    if (eq != std::string::npos && pair.substr(0, eq) == name) values.push_back(pair.substr(eq + 1));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return values;
}

std::string port_cookie_name(const char* base, int port) { return std::string(base) + "_" + std::to_string(port); }

bool request_has_token(const std::string& expected, const std::string& authorization, const std::string& cookie,
                       const std::string& cookie_name) {
  if (expected.empty()) return false;
  // The scheme is case-insensitive (RFC 9110 11.1): "Bearer", "bearer", "BEARER".
  const std::string bearer = "bearer ";
  const bool is_bearer = authorization.size() > bearer.size() &&
                         std::equal(bearer.begin(), bearer.end(), authorization.begin(), [](char a, char b) {
                           return a == std::tolower(static_cast<unsigned char>(b));
                         });
  if (is_bearer && tokens_equal(expected, trim(authorization.substr(bearer.size())))) return true;
  // Every cookie of that name: a browser may send a stale one (another path or domain) first.
  bool ok = false;
  for (const auto& value : cookie_values(cookie, cookie_name)) ok = tokens_equal(expected, value) || ok;
  return ok;
}

}  // namespace lane::dashboard
