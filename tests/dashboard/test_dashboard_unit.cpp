// lane_dashboard's pure parts: --listen parsing, loopback detection, the token, the actions' CSRF
// guards (csrf.h), the embedded assets.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "dashboard/assets.h"
#include "dashboard/csrf.h"
#include "dashboard/listen_address.h"
#include "dashboard/token.h"

using namespace lane::dashboard;

TEST_CASE("the listen address is HOST:PORT with IPv6 in brackets and a port 0..65535", "[dashboard][fast]") {
  auto a = parse_listen_address("127.0.0.1:8080");
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 8080);
  auto v6 = parse_listen_address("[::1]:0");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->port == 0);
  CHECK(parse_listen_address("0.0.0.0:65535"));
  for (const char* bad : {"8080", ":80", "host:", "host:65536", "host:http", "::1:80", "[::1]80", "[]:80", "a b:80", "h:123456"})
    CHECK_FALSE(parse_listen_address(bad));
}

TEST_CASE("loopback hosts are told apart from the others", "[dashboard][fast]") {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) CHECK(is_loopback_host(h));
  for (const char* h : {"0.0.0.0", "10.0.0.1", "::", "example.com", "128.0.0.1", ""}) CHECK_FALSE(is_loopback_host(h));
  CHECK(dashboard_url("127.0.0.1", 80) == "http://127.0.0.1:80/");
  CHECK(dashboard_url("::1", 8080) == "http://[::1]:8080/");
}

TEST_CASE("generated tokens are 64 hex digits and differ", "[dashboard][fast]") {
  std::set<std::string> seen;
  for (int i = 0; i < 16; ++i) {
    auto t = generate_token();
    CHECK(t.size() == 64);
    CHECK(t.find_first_not_of("0123456789abcdef") == std::string::npos);
    seen.insert(t);
  }
  CHECK(seen.size() == 16);
}

TEST_CASE("the token matches by Bearer header or cookie and exactly", "[dashboard][fast]") {
  CHECK(tokens_equal("abc", "abc"));
  CHECK_FALSE(tokens_equal("abc", "abd"));
  CHECK_FALSE(tokens_equal("abc", "ab"));
  CHECK_FALSE(tokens_equal("abc", "abcabc"));
  CHECK_FALSE(tokens_equal("", ""));
  const std::string name = "lanectl_dashboard_token_8080";
  CHECK(port_cookie_name(kTokenCookie, 8080) == name);
  CHECK(port_cookie_name(kSessionCookie, 1) == "lanectl_dashboard_session_1");
  CHECK(request_has_token("tok", "Bearer tok", "", name));
  CHECK(request_has_token("tok", "", "x=1; lanectl_dashboard_token_8080=tok; y=2", name));
  CHECK(request_has_token("tok", "", "lanectl_dashboard_token_8080=tok", name));
  CHECK_FALSE(request_has_token("tok", "Basic tok", "", name));
  CHECK_FALSE(request_has_token("tok", "Bearer tok2", "other_token=tok", name));
  CHECK_FALSE(request_has_token("tok", "", "xlanectl_dashboard_token_8080=tok", name));
  CHECK_FALSE(request_has_token("", "Bearer ", "lanectl_dashboard_token_8080=", name));
  // Another dashboard's cookie (another port), or the name without a port, is not this one's.
  CHECK_FALSE(request_has_token("tok", "", "lanectl_dashboard_token_8081=tok", name));
  CHECK_FALSE(request_has_token("tok", "", "lanectl_dashboard_token=tok", name));
  CHECK_FALSE(request_has_token("tok", "", "lanectl_dashboard_token_80800=tok", name));
  // A stale cookie of the same name sent first does not hide the valid one.
  CHECK(request_has_token("tok", "", "lanectl_dashboard_token_8080=old; lanectl_dashboard_token_8080=tok", name));
  CHECK_FALSE(request_has_token("tok", "", "lanectl_dashboard_token_8080=old; lanectl_dashboard_token_8080=older", name));
}

TEST_CASE("a cookie's values are found by its exact name, in order", "[dashboard][fast]") {
  using V = std::vector<std::string>;
  CHECK(cookie_values("a=1; lanectl_dashboard_session=abc; b=2", kSessionCookie) == V{"abc"});
  CHECK(cookie_values("lanectl_dashboard_session=x=y", kSessionCookie) == V{"x=y"});
  CHECK(cookie_values("xlanectl_dashboard_session=abc", kSessionCookie).empty());
  CHECK(cookie_values("", kSessionCookie).empty());
  CHECK(cookie_values("s=1;s=2 ; t=3; s=", "s") == V{"1", "2", ""});
}

TEST_CASE("an action must come from a page of the dashboard's own origin", "[dashboard][fast]") {
  const std::string host = "127.0.0.1:8080";
  CHECK(cross_site_problem(host, "http://127.0.0.1:8080", "", "").empty());
  CHECK(cross_site_problem(host, "https://127.0.0.1:8080", "same-origin", "").empty());  // behind a TLS proxy
  CHECK(cross_site_problem(host, "", "same-origin", "").empty());
  CHECK(cross_site_problem(host, "", "", "http://127.0.0.1:8080/#/jobs").empty());
  CHECK_FALSE(cross_site_problem(host, "http://evil.example", "", "").empty());
  CHECK_FALSE(cross_site_problem(host, "http://127.0.0.1:8081", "", "").empty());
  CHECK_FALSE(cross_site_problem(host, "http://127.0.0.1:8080.evil.example", "", "").empty());
  CHECK_FALSE(cross_site_problem(host, "null", "", "").empty());
  CHECK_FALSE(cross_site_problem(host, "http://127.0.0.1:8080", "cross-site", "").empty());
  CHECK_FALSE(cross_site_problem(host, "http://127.0.0.1:8080", "same-site", "").empty());
  CHECK_FALSE(cross_site_problem(host, "", "", "http://127.0.0.1:8080.evil.example/").empty());
  CHECK_FALSE(cross_site_problem(host, "", "", "http://evil.example/?http://127.0.0.1:8080/").empty());
  CHECK(cross_site_problem(host, "", "", "").find("no Origin") != std::string::npos);
  CHECK_FALSE(cross_site_problem("", "http://", "", "").empty());
}

TEST_CASE("each session has its own CSRF token and the oldest are forgotten", "[dashboard][fast]") {
  using V = std::vector<std::string>;
  Sessions sessions(2);
  bool created = false;
  auto a = sessions.open({}, created);
  CHECK(created);
  CHECK(a.id.size() == 64);
  CHECK(a.csrf.size() == 64);
  CHECK(a.id != a.csrf);
  auto again = sessions.open({a.id}, created);
  CHECK_FALSE(created);
  CHECK(again.csrf == a.csrf);
  auto b = sessions.open({"not-a-session", ""}, created);
  CHECK(created);
  CHECK(b.number == a.number + 1);
  CHECK(sessions.check({a.id}, a.csrf) == a.number);
  CHECK_FALSE(sessions.check({a.id}, b.csrf));
  CHECK_FALSE(sessions.check({b.id}, a.csrf));
  CHECK_FALSE(sessions.check({a.id}, ""));
  CHECK_FALSE(sessions.check({""}, ""));
  CHECK_FALSE(sessions.check({}, a.csrf));
  // A stale session cookie sent first (another path or domain) does not hide the live one.
  CHECK(sessions.check(V{"stale", b.id}, b.csrf) == b.number);
  auto found = sessions.open(V{"stale", b.id}, created);
  CHECK_FALSE(created);
  CHECK(found.number == b.number);
  sessions.open({}, created);  // a third: the first is forgotten
  CHECK_FALSE(sessions.check({a.id}, a.csrf));
  CHECK(sessions.check({b.id}, b.csrf) == b.number);
}

TEST_CASE("the web UI is embedded with its content types", "[dashboard][fast]") {
  const Asset* index = find_asset("index.html");
  REQUIRE(index);
  std::string html(reinterpret_cast<const char*>(index->data), index->size);
  CHECK(html.find("<main id=\"view\">") != std::string::npos);
  CHECK(html.rfind("</html>") != std::string::npos);
  REQUIRE(find_asset("app.js"));
  REQUIRE(find_asset("ui.js"));
  REQUIRE(find_asset("jobs.js"));
  REQUIRE(find_asset("style.css"));
  CHECK_FALSE(find_asset("../CMakeLists.txt"));
  CHECK(asset_content_type("index.html") == "text/html; charset=utf-8");
  CHECK(asset_content_type("app.js") == "text/javascript; charset=utf-8");
  CHECK(asset_content_type("style.css") == "text/css; charset=utf-8");
}
