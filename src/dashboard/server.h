#pragma once
// `lanectl dashboard`'s HTTP server (cpp-httplib): the embedded web UI at /, the read-only JSON
// API (api.h) at /api/..., the jobs event stream at /api/events. Security model (docs/dashboard.md):
// read-only by default (any method but GET/HEAD is 405); with allow_actions (which needs the token)
// POST /api/jobs/P/NAME/ACTION runs a job action when it also passes the same-origin check and
// carries its session's CSRF token (csrf.h), and each one is logged; on a loopback address without a token only the
// user who started it is served (the client socket's uid, peer_uid.h) and the Host header must
// name a loopback host (no DNS rebinding); with a token, or beyond loopback, every request needs
// the token (Authorization: Bearer T, the lanectl_dashboard_token_PORT cookie, or ?token=T once, which
// sets the cookie and redirects). The token is never logged. A bounded thread pool serves at most
// max_event_streams event streams (more: 503) and always keeps threads for the other requests.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "dashboard/api.h"
#include "dashboard/listen_address.h"

namespace lane::dashboard {

struct ServerOptions {
  ListenAddress listen;
  std::string token;  // required (non-empty) when listen.host is not loopback
  std::chrono::milliseconds poll_interval{500};
  // A comment on an idle event stream this often; a closed stream is noticed at its next write
  // (the feed polls while a stream is open), so short.
  std::chrono::milliseconds keepalive{5000};
  size_t max_event_streams = 16;
  // The job actions (POST; api.h's Api::post): off unless asked for, and only with a token.
  bool allow_actions = false;
  // Where each action's line goes (who, what, which job, the result); never a token.
  std::function<void(const std::string&)> log;
};

class Server {
 public:
  // Throws lane::Error when the address is beyond loopback and no token is given, or when
  // actions are allowed without a token.
  Server(Roles roles, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listening socket; returns the port (the chosen one for port 0). Throws lane::Error
  // naming the address when it cannot listen there.
  int bind();
  // Serves until stop() (from another thread or a signal watcher). Call bind() first.
  void run();
  // Ends run() (also when called before run() has started listening): closes the listener and
  // the event streams. Thread-safe, idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lane::dashboard
