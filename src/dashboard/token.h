#pragma once
// The dashboard's access token: generated from the kernel's CSPRNG, compared in constant time,
// taken from `Authorization: Bearer T` or the `lanectl_dashboard_token_PORT` cookie. Never logged.
#include <string>
#include <vector>

namespace lane::dashboard {

// The name of a cookie of the dashboard that listens on `port`: `base`_PORT. A browser sends a
// host's cookies to all its ports (RFC 6265 section 8.5), so two dashboards on one machine with
// one name would overwrite each other's cookies: logging into the second would log out of the first.
std::string port_cookie_name(const char* base, int port);
inline constexpr const char* kTokenCookie = "lanectl_dashboard_token";

// 32 random bytes (getrandom) as 64 hex digits. Throws lane::Error if the kernel gives none.
std::string generate_token();

// Equality that takes the same time wherever the first difference is.
bool tokens_equal(const std::string& expected, const std::string& given);

// Whether the request carries `expected` in its Authorization header (Bearer) or, in its Cookie
// header, in a cookie named `cookie_name`. An empty `expected` never matches.
bool request_has_token(const std::string& expected, const std::string& authorization, const std::string& cookie,
                       const std::string& cookie_name);

// The values of the cookies `name` in a Cookie header ("a=1; name=V; b=2" → {"V"}), in order.
std::vector<std::string> cookie_values(const std::string& cookie, const std::string& name);

}  // namespace lane::dashboard
