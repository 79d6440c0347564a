// lane_net against a 127.0.0.1 test server: what the transport sends and hands back, and the
// one retry loop (which failures are repeated, backoff, Retry-After, 401 re-authentication).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "http_test_server.h"
#include "net/redact.h"
#include "net/retry.h"
#include "net/transport.h"

using namespace std::chrono_literals;
using lane::test::HttpTestServer;
using lane::test::ScriptedResponse;
namespace net = lane::net;

namespace {

net::RetryPolicy fast_policy(int attempts = 4) {
  net::RetryPolicy p;
  p.max_attempts = attempts;
  p.base_delay = 10ms;
  p.max_delay = 40ms;
  p.max_retry_after = 60s;
  return p;
}

net::Request request(const HttpTestServer& server, const std::string& method, const std::string& path) {
  net::Request r;
  r.method = method;
  r.url = server.base_url() + path;
  r.timeout_s = 10;
  return r;
}

// A port on 127.0.0.1 where nothing listens (bound, then closed).
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Sent {
  net::Transport transport;
  int attempts = 0;
  net::Outcome send(const net::Request& r) {
    ++attempts;
    return transport.perform(r);
  }
};

}  // namespace

TEST_CASE("net transport: method, body, content type, bearer token and headers go out, and the answer comes back", "[net][fast]") {
  HttpTestServer server;
  server.script("/things", {201, {{"X-Reply", "yes"}}, R"({"ok":true})"});
  net::Transport transport;
  net::Request r = request(server, "POST", "/things");
  r.body = R"({"name":"a"})";
  r.bearer_token = "tok-123";
  r.headers = {"X-Extra: 1"};
  const net::Outcome out = transport.perform(r);
  REQUIRE_FALSE(out.transport_failed);
  CHECK(out.response.status == 201);
  CHECK(out.response.body == R"({"ok":true})");
  CHECK(out.response.header("x-reply") == "yes");
  const auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].body == R"({"name":"a"})");
  CHECK(seen[0].headers.at("content-type") == "application/json");
  CHECK(seen[0].headers.at("authorization") == "Bearer tok-123");
  CHECK(seen[0].headers.at("x-extra") == "1");
  CHECK(seen[0].headers.at("accept") == "application/json");
}

TEST_CASE("net transport: a 2xx body is streamed to on_data, which can stop the transfer", "[net][fast]") {
  HttpTestServer server;
  server.serve("/log", std::string(100000, 'x'));
  net::Transport transport;
  net::Request r = request(server, "GET", "/log");
  size_t got = 0;
  r.on_data = [&](std::string_view chunk) {
    got += chunk.size();
    return true;
  };
  net::Outcome out = transport.perform(r);
  CHECK_FALSE(out.transport_failed);
  CHECK(got == 100000);
  CHECK(out.response.body.empty());  // handed over, not collected
  CHECK(out.streamed_any);

  r.on_data = [](std::string_view) { return false; };
  out = transport.perform(r);
  CHECK(out.stopped_by_callback);
  CHECK_FALSE(out.transport_failed);
}

TEST_CASE("net transport: a refused connection is a transport failure the server never saw", "[net][fast]") {
  net::Transport transport;
  net::Request r;
  r.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/x";
  const net::Outcome out = transport.perform(r);
  CHECK(out.transport_failed);
  CHECK_FALSE(out.request_sent);
  CHECK_FALSE(out.error.empty());
  r.url = "gopher://127.0.0.1/x";
  CHECK(transport.perform(r).permanent);
}

TEST_CASE("net retry: 5xx on an idempotent request is retried with backoff until it succeeds", "[net][fast]") {
  HttpTestServer server;
  server.script("/r", {503, {}, "busy"});
  server.script("/r", {502, {}, "bad gateway"});
  server.script("/r", {200, {}, "done"});
  Sent s;
  std::vector<int> next_attempts;
  net::RetryHooks hooks;
  hooks.on_retry = [&](const net::Outcome& o, std::chrono::milliseconds wait, int next) {
    CHECK((o.response.status == 503 || o.response.status == 502));
    CHECK(wait >= 5ms);
    next_attempts.push_back(next);
  };
  const auto r = request(server, "GET", "/r");
  const net::Outcome out = net::send_with_retries([&] { return s.send(r); }, true, fast_policy(), hooks);
  CHECK(out.response.status == 200);
  CHECK(out.response.body == "done");
  CHECK(s.attempts == 3);
  CHECK(next_attempts == std::vector<int>{2, 3});
}

TEST_CASE("net retry: the attempts are bounded and the last answer is returned", "[net][fast]") {
  HttpTestServer server;
  for (int i = 0; i < 5; ++i) server.script("/r", {500, {}, "broken " + std::to_string(i)});
  Sent s;
  const auto r = request(server, "PUT", "/r");
  const net::Outcome out = net::send_with_retries([&] { return s.send(r); }, true, fast_policy(3));
  CHECK(s.attempts == 3);
  CHECK(out.response.status == 500);
  CHECK(out.response.body == "broken 2");
}

TEST_CASE("net retry: a POST is repeated after 429 and a refused connection, never after 5xx", "[net][fast]") {
  HttpTestServer server;
  server.script("/p", {503, {}, "maybe applied"});
  Sent s;
  auto r = request(server, "POST", "/p");
  r.body = "{}";
  net::Outcome out = net::send_with_retries([&] { return s.send(r); }, net::idempotent("POST"), fast_policy());
  CHECK(out.response.status == 503);
  CHECK(s.attempts == 1);

  server.script("/p", {429, {{"Retry-After", "0"}}, "slow down"});
  server.script("/p", {201, {}, "created"});
  s.attempts = 0;
  out = net::send_with_retries([&] { return s.send(r); }, net::idempotent("POST"), fast_policy());
  CHECK(out.response.status == 201);
  CHECK(s.attempts == 2);

  s.attempts = 0;
  r.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/p";
  out = net::send_with_retries([&] { return s.send(r); }, net::idempotent("POST"), fast_policy(3));
  CHECK(out.transport_failed);
  CHECK(s.attempts == 3);  // the server saw nothing: safe to repeat
}

TEST_CASE("net retry: a wrong URL scheme is not retried", "[net][fast]") {
  Sent s;
  net::Request r;
  r.url = "gopher://127.0.0.1/x";
  const net::Outcome out = net::send_with_retries([&] { return s.send(r); }, true, fast_policy());
  CHECK(out.permanent);
  CHECK(s.attempts == 1);
}

TEST_CASE("net retry: Retry-After is honoured, and capped by max_retry_after", "[net][slow]") {
  HttpTestServer server;
  server.script("/r", {429, {{"Retry-After", "1"}}, ""});
  server.script("/r", {200, {}, "ok"});
  Sent s;
  const auto r = request(server, "GET", "/r");
  auto t0 = std::chrono::steady_clock::now();
  net::Outcome out = net::send_with_retries([&] { return s.send(r); }, true, fast_policy());
  auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(out.response.status == 200);
  CHECK(waited >= 1s);  // not the 10-40 ms backoff

  server.script("/r", {503, {{"Retry-After", "3600"}}, ""});
  server.script("/r", {200, {}, "ok"});
  auto policy = fast_policy();
  policy.max_retry_after = 1s;
  t0 = std::chrono::steady_clock::now();
  out = net::send_with_retries([&] { return s.send(r); }, true, policy);
  waited = std::chrono::steady_clock::now() - t0;
  CHECK(out.response.status == 200);
  CHECK(waited >= 1s);
  CHECK(waited < 10s);
}

TEST_CASE("net retry: a 401 is sent again once after re-authentication, not counted as an attempt", "[net][fast]") {
  HttpTestServer server;
  server.script("/r", {401, {}, "expired"});
  server.script("/r", {200, {}, "ok"});
  server.script("/s", {401, {}, "expired"});
  server.script("/s", {401, {}, "still wrong"});
  Sent s;
  int reauth = 0;
  net::RetryHooks hooks;
  hooks.reauthenticate = [&] {
    ++reauth;
    return true;
  };
  net::Outcome out =
      net::send_with_retries([&] { return s.send(request(server, "GET", "/r")); }, true, fast_policy(1), hooks);
  CHECK(out.response.status == 200);
  CHECK(reauth == 1);
  reauth = 0;
  out = net::send_with_retries([&] { return s.send(request(server, "GET", "/s")); }, true, fast_policy(), hooks);
  CHECK(out.response.status == 401);  // once only
  CHECK(reauth == 1);
}

TEST_CASE("net retry: Retry-After parsing", "[net][fast]") {
  using Case = std::pair<std::string, std::optional<long>>;
  auto [text, seconds] = GENERATE(Case{"0", 0L}, Case{"120", 120L}, Case{"", std::nullopt}, Case{"1.5", std::nullopt},
                                  Case{"-1", std::nullopt}, Case{"Wed, 21 Oct 2015 07:28:00 GMT", std::nullopt},
                                  Case{"9999999999", std::nullopt});
  CAPTURE(text);
  auto parsed = net::parse_retry_after(text);
  REQUIRE(parsed.has_value() == seconds.has_value());
  if (seconds) CHECK(parsed->count() == *seconds);
}

TEST_CASE("net retry: backoff grows exponentially with jitter, capped, and waits at least Retry-After", "[net][fast]") {
  net::RetryPolicy p;
  p.base_delay = 100ms;
  p.max_delay = 400ms;
  p.max_retry_after = 3s;
  auto [attempt, cap] = GENERATE(std::pair{1, 100}, std::pair{2, 200}, std::pair{3, 400}, std::pair{8, 400});
  CAPTURE(attempt);
  for (int i = 0; i < 50; ++i) {
    const auto d = net::backoff_delay(p, attempt, nullptr).count();
    CHECK(d >= cap / 2);
    CHECK(d <= cap);
  }
  net::Response asks;
  asks.headers["retry-after"] = "2";
  CHECK(net::backoff_delay(p, attempt, &asks) == 2000ms);
  asks.headers["retry-after"] = "100";
  CHECK(net::backoff_delay(p, attempt, &asks) == 3000ms);
}

TEST_CASE("net redact: every occurrence of each secret becomes ****", "[net][fast]") {
  CHECK(net::redact("id=a&secret=s3cr3t; again s3cr3t", {"s3cr3t"}) == "id=a&secret=****; again ****");
  CHECK(net::redact("nothing here", {"", "zzz"}) == "nothing here");
  CHECK(net::redact("tok and key", {"tok", "key"}) == "**** and ****");
}

TEST_CASE("net redact: a URL's user information becomes ***, the rest stays", "[net][fast]") {
  CHECK(net::redact_url("https://user:secret@mirror.example/x/y.zip") == "https://***@mirror.example/x/y.zip");
  CHECK(net::redact_url("https://mirror.example/a@b.zip") == "https://mirror.example/a@b.zip");
  CHECK(net::redact_url("http://127.0.0.1:8080/data") == "http://127.0.0.1:8080/data");
}

TEST_CASE("net url_escape: unreserved characters stay, everything else is percent-encoded", "[net][fast]") {
  CHECK(net::url_escape("Az09-._~") == "Az09-._~");
  CHECK(net::url_escape("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9");
}
