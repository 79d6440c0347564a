#include "dashboard/server.h"

#include <httplib.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <map>
#include <thread>

#include "common/error.h"
#include "common/secrets.h"
#include "dashboard/assets.h"
#include "dashboard/csrf.h"
#include "dashboard/job_feed.h"
#include "dashboard/peer_uid.h"
#include "dashboard/token.h"

namespace lane::dashboard {

namespace {

// Threads beyond the event streams' (each open stream holds one): the other requests always
// have these. Many, as an idle connection holds one until its timeout (asleep: a thread costs
// little), so that a crowd of idle connections does not keep the others waiting.
constexpr size_t kSpareThreads = 112;
// A connection's read or write that makes no progress for this long ends it (a client that
// sends nothing, or stops reading its event stream); an idle keep-alive connection is closed
// sooner, so idle connections give their thread back quickly.
constexpr time_t kReadWriteTimeoutSeconds = 5;
constexpr time_t kKeepAliveTimeoutSeconds = 2;
// Connections waiting for accept() (httplib listens with 5): idle ones wait there (deferred
// accept, below) without keeping the others out.
constexpr int kListenBacklog = 1024;
// The largest request body read (an action's JSON is a few KiB); more is 413.
constexpr size_t kMaxBodyBytes = 1u << 20;

// The host part of a Host header ("127.0.0.1:8080" → "127.0.0.1", "[::1]:80" → "::1").
std::string host_of(const std::string& header) {
  if (!header.empty() && header.front() == '[') {
    auto close = header.find(']');
    return close == std::string::npos ? header : header.substr(1, close - 1);
  }
  return header.substr(0, header.find(':'));
}

void send(httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  for (const auto& [k, v] : reply.headers) res.set_header(k, v);
  if (!reply.file || reply.file->size == 0) return res.set_content(reply.body, reply.content_type.c_str());
  // A download: read from the open file a piece at a time as the client takes it (a file that
  // shrank meanwhile ends the connection: the length was promised).
  res.set_content_provider(reply.file->size, reply.content_type, [file = reply.file](size_t offset, size_t length,
                                                                                     httplib::DataSink& sink) {
    std::string buf(std::min<size_t>(length, 256u << 10), '\0');
    try {
      const size_t got = file->read_at(offset, buf.data(), buf.size());
      return got > 0 && sink.write(buf.data(), got);
    } catch (const std::exception&) {
      return false;
    }
  });
}

// `text` for a log line: printable ASCII only, at most `max` characters (it may come from the request).
std::string loggable(const std::string& text, size_t max = 200) {
  std::string out;
  for (char c : text.substr(0, max)) out += c >= ' ' && c < 127 ? c : '?';
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

constexpr const char* kReadOnlyHint =
    "start lanectl dashboard with --allow-actions (and a token) to suspend, resume, delete and resubmit jobs here";

}  // namespace

// httplib's server, with its listening socket at hand to raise the backlog. Not in the anonymous
// namespace: Server::Impl holds one, and in a unity batch GCC warns of a member whose type has
// internal linkage (-Wsubobject-linkage).
class HttpServer : public httplib::Server {
 public:
  socket_t listener() const { return svr_sock_; }
};

struct Server::Impl {
  Impl(Roles roles, ServerOptions o)
      : options(std::move(o)), api(roles), feed([this] { return list_jobs(); }, options.poll_interval) {}

  // On loopback without a token: whether the client's socket belongs to the dashboard's own user.
  bool from_own_user(const httplib::Request& req) const {
    auto uid = loopback_peer_uid({req.remote_addr, req.remote_port}, {req.local_addr, req.local_port});
    return uid && *uid == own_uid;
  }

  std::vector<JobEntry> list_jobs() {
    std::vector<JobEntry> entries;
    for (auto& [key, json] : api.job_documents()) entries.push_back({std::move(key), std::move(json)});
    return entries;
  }

  // Auth, Host and method checks before any route; Handled when the request is answered here.
  httplib::Server::HandlerResponse screen(const httplib::Request& req, httplib::Response& res);
  void events(const httplib::Request& req, httplib::Response& res);
  void asset(const httplib::Request& req, httplib::Response& res);
  // GET /api/session: whether actions are on and, when they are, this session's CSRF token.
  void session(const httplib::Request& req, httplib::Response& res);
  // POST /api/jobs/P/NAME/ACTION: the same-origin and CSRF checks, the action, its log line.
  void action(const httplib::Request& req, httplib::Response& res);
  void log_action(const httplib::Request& req, std::optional<uint64_t> session, const Reply& reply);

  ServerOptions options;
  Sessions sessions;
  bool need_token = false;
  uid_t own_uid = geteuid();
  std::atomic<size_t> open_streams{0};
  Api api;
  JobFeed feed;
  HttpServer http;
  int port = -1;
  // lanectl_dashboard_{token,session}_PORT (port_cookie_name), set by bind().
  std::string token_cookie, session_cookie;
};

httplib::Server::HandlerResponse Server::Impl::screen(const httplib::Request& req, httplib::Response& res) {
  using R = httplib::Server::HandlerResponse;
  if (!need_token) {
    if (!is_loopback_host(host_of(req.get_header_value("Host")))) {
      send(res, error_reply(403, "the dashboard listens on loopback: use a loopback Host (127.0.0.1, localhost)"));
      return R::Handled;
    }
    if (!from_own_user(req)) {
      send(res, error_reply(401, "without a token this dashboard serves only the user who started it (uid " +
                                     std::to_string(own_uid) + "); to let others in, start it with --token or "
                                     "LANECTL_DASHBOARD_TOKEN and send Authorization: Bearer TOKEN"));
      return R::Handled;
    }
  } else if (!request_has_token(options.token, req.get_header_value("Authorization"), req.get_header_value("Cookie"),
                                token_cookie)) {
    // ?token=T (the link printed at start): set the cookie and drop the token from the address.
    if (req.method == "GET" && req.has_param("token") && tokens_equal(options.token, req.get_param_value("token"))) {
      res.status = 303;
      res.set_header("Set-Cookie", token_cookie + "=" + options.token + "; Path=/; HttpOnly; SameSite=Strict");
      // Only a path of this server: "//host/..." would send the browser elsewhere.
      bool local_path = req.path.size() >= 1 && req.path[0] == '/' && req.path.compare(0, 2, "//") != 0 &&
                        req.path.find_first_of("\\\r\n") == std::string::npos;
      res.set_header("Location", local_path ? req.path : "/");
      return R::Handled;
    }
    res.set_header("WWW-Authenticate", "Bearer realm=\"lanectl dashboard\"");
    const std::string how = "open the link lanectl dashboard printed at start (/?token=TOKEN, TOKEN being the --token "
                            "or LANECTL_DASHBOARD_TOKEN it was started with), or send Authorization: Bearer TOKEN";
    send(res, error_reply(401, req.has_param("token") ? "the token in this link is not this dashboard's: " + how
                                                      : "this dashboard needs its token: " + how));
    return R::Handled;
  }
  if (req.method == "POST" && options.allow_actions) return R::Unhandled;
  if (req.method != "GET" && req.method != "HEAD") {
    res.set_header("Allow", options.allow_actions ? "GET, HEAD, POST" : "GET, HEAD");
    send(res, error_reply(405, options.allow_actions ? req.method + " is not allowed: actions are POST"
                                                     : "the dashboard is read-only: " + req.method +
                                                           " is not allowed; " + kReadOnlyHint));
    return R::Handled;
  }
  return R::Unhandled;
}

void Server::Impl::events(const httplib::Request&, httplib::Response& res) {
  if (open_streams.fetch_add(1) >= options.max_event_streams) {
    --open_streams;
    res.set_header("Retry-After", "10");
    send(res, error_reply(503, "too many open event streams (at most " + std::to_string(options.max_event_streams) +
                                   "): close another dashboard tab; /api/jobs still answers"));
    return;
  }
  // Lives as long as the response (the content provider holds it): the feed polls while any does.
  struct Stream {
    Stream(JobFeed& feed, std::atomic<size_t>& open) : viewer(feed), open(open) {}
    ~Stream() { --open; }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    JobFeed::Viewer viewer;
    std::atomic<size_t>& open;
    uint64_t seen = 0;
    std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
    bool started = false;
  };
  auto stream = std::make_shared<Stream>(feed, open_streams);
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider("text/event-stream", [this, stream](size_t, httplib::DataSink& sink) {
    std::string chunk;
    if (!stream->started) {
      chunk = "retry: 2000\n\n";
      stream->started = true;
    }
    auto wait = std::min<std::chrono::milliseconds>(options.keepalive, std::chrono::milliseconds(1000));
    auto update = stream->viewer.wait_update(stream->seen, chunk.empty() ? wait : std::chrono::milliseconds(0));
    if (feed.stopped()) return false;
    auto now = std::chrono::steady_clock::now();
    if (update.version != stream->seen) {
      // The whole list on connect (or when too far behind), else only what changed.
      if (update.full) {
        chunk += "event: jobs\nid: " + std::to_string(update.version) + "\ndata: " + *update.full + "\n\n";
      } else {
        for (const auto& d : update.deltas)
          chunk += "event: jobs-delta\nid: " + std::to_string(d.version) + "\ndata: " + *d.document + "\n\n";
      }
      stream->seen = update.version;
    } else if (chunk.empty() && now - stream->last_write >= options.keepalive) {
      chunk = ": keep-alive\n\n";
    }
    if (chunk.empty()) return true;
    stream->last_write = now;
    return sink.write(chunk.data(), chunk.size());
  });
}

void Server::Impl::session(const httplib::Request& req, httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  if (!options.allow_actions) return send(res, json_reply({{"actions", false}, {"reason", std::string("read-only: ") + kReadOnlyHint}}));
  bool created = false;
  auto s = sessions.open(cookie_values(req.get_header_value("Cookie"), session_cookie), created);
  if (created) res.set_header("Set-Cookie", session_cookie + "=" + s.id + "; Path=/; HttpOnly; SameSite=Strict");
  send(res, json_reply({{"actions", true}, {"csrfToken", s.csrf}, {"session", s.number}}));
}

void Server::Impl::action(const httplib::Request& req, httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  std::string problem = cross_site_problem(req.get_header_value("Host"), req.get_header_value("Origin"),
                                           req.get_header_value("Sec-Fetch-Site"), req.get_header_value("Referer"));
  std::optional<uint64_t> session;
  if (problem.empty())
    session = sessions.check(cookie_values(req.get_header_value("Cookie"), session_cookie), req.get_header_value(kCsrfHeader));
  Reply reply = !problem.empty() ? error_reply(403, "cross-site request refused: " + problem)
                : !session ? error_reply(403, std::string("missing or wrong CSRF token: send the ") + kCsrfHeader +
                                                  " header that GET /api/session gave this session (with its cookie)")
                           : api.post(req.path, req.body);
  log_action(req, session, reply);
  send(res, reply);
}

// "2026-11-27T09:30:00Z dashboard action suspend job default/train-1 by uid 1000 (session 2): 200 Job
// train-1 suspended successfully." The message is the answer's, its secret-looking parts masked.
void Server::Impl::log_action(const httplib::Request& req, std::optional<uint64_t> session, const Reply& reply) {
  if (!options.log) return;
  auto parts = split_api_path(req.path);
  bool named = parts.size() == 5;
  auto uid = loopback_peer_uid({req.remote_addr, req.remote_port}, {req.local_addr, req.local_port});
  auto doc = nlohmann::json::parse(reply.body, nullptr, false);
  std::string message = doc.is_object() ? doc.value("message", doc.value("error", "")) : "";
  options.log(utc_now() + " dashboard action " + loggable(named ? parts[4] : "POST " + req.path) +
              (named ? " job " + loggable(parts[2] + "/" + parts[3]) : "") + " by " +
              (uid ? "uid " + std::to_string(*uid) : "peer " + loggable(req.remote_addr)) +
              (session ? " (session " + std::to_string(*session) + ")" : " (no session)") + ": " +
              std::to_string(reply.status) + " " + loggable(mask_secret_value(message), 500));
}

void Server::Impl::asset(const httplib::Request& req, httplib::Response& res) {
  std::string name = req.path == "/" ? "index.html" : req.path.substr(1);
  const Asset* a = find_asset(name);
  if (!a) return send(res, error_reply(404, "no such page: " + req.path + " (the dashboard is at /)"));
  std::string type = asset_content_type(name);
  if (type.rfind("text/html", 0) == 0)
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
  res.set_header("Cache-Control", "no-cache");
  res.set_content(reinterpret_cast<const char*>(a->data), a->size, type.c_str());
}

Server::Server(Roles roles, ServerOptions options) {
  bool loopback = is_loopback_host(options.listen.host);
  if (!loopback && options.token.empty())
    throw Error("dashboard: listening on " + options.listen.host + " (beyond loopback) needs a token");
  if (options.allow_actions && options.token.empty())
    throw Error("dashboard: actions need a token (they are never served to an unauthenticated listener)");
  impl_ = std::make_unique<Impl>(roles, std::move(options));
  Impl& s = *impl_;
  s.need_token = !loopback || !s.options.token.empty();
  size_t threads = s.options.max_event_streams + kSpareThreads;
  s.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.http.set_read_timeout(kReadWriteTimeoutSeconds);
  s.http.set_write_timeout(kReadWriteTimeoutSeconds);
  s.http.set_keep_alive_timeout(kKeepAliveTimeoutSeconds);
  s.http.set_payload_max_length(kMaxBodyBytes);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which lets a second server (a second
  // `lanectl dashboard` of the same user) bind the same port and share its connections silently.
  s.http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // A connection reaches accept() (and a thread) once it has sent something.
    int defer_seconds = static_cast<int>(kReadWriteTimeoutSeconds);
    setsockopt(sock, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof defer_seconds);
  });
  s.http.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                              {"X-Frame-Options", "DENY"},
                              {"Referrer-Policy", "no-referrer"}});
  s.http.set_pre_routing_handler([&s](const httplib::Request& req, httplib::Response& res) { return s.screen(req, res); });
  s.http.Get("/api/events", [&s](const httplib::Request& req, httplib::Response& res) { s.events(req, res); });
  s.http.Get("/api/session", [&s](const httplib::Request& req, httplib::Response& res) { s.session(req, res); });
  s.http.Post("/api/.*", [&s](const httplib::Request& req, httplib::Response& res) { s.action(req, res); });
  s.http.Get("/api/.*", [&s](const httplib::Request& req, httplib::Response& res) {
    std::map<std::string, std::string> query;
    for (const auto& [k, v] : req.params) query.emplace(k, v);
    res.set_header("Cache-Control", "no-store");
    send(res, s.api.get(req.path, query));
  });
  s.http.Get("/.*", [&s](const httplib::Request& req, httplib::Response& res) { s.asset(req, res); });
  s.http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send(res, error_reply(500, "internal error"));
  });
  // What httplib refuses itself (413, 414, a malformed request) is JSON too, with its status text.
  s.http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const int status = res.status;
    std::string what = "HTTP error " + std::to_string(status);
    if (status == 400) what = "malformed request (a POST needs Content-Length or chunked encoding)";
    if (status == 413) what = "request body too large (at most " + std::to_string(kMaxBodyBytes >> 20) + " MiB)";
    if (status == 414) what = "request URI too long";
    send(res, error_reply(status, what));
    return httplib::Server::HandlerResponse::Handled;
  }));
}

Server::~Server() { stop(); }

int Server::bind() {
  const auto& l = impl_->options.listen;
  int port = l.port == 0 ? impl_->http.bind_to_any_port(l.host) : (impl_->http.bind_to_port(l.host, l.port) ? l.port : -1);
  if (port < 0)
    throw Error("dashboard: cannot listen on " + l.host + ":" + std::to_string(l.port) +
                " (address in use or not on this machine); pick another with --listen HOST:PORT");
  ::listen(impl_->http.listener(), kListenBacklog);  // on failure httplib's backlog stays
  impl_->port = port;
  impl_->token_cookie = port_cookie_name(kTokenCookie, port);
  impl_->session_cookie = port_cookie_name(kSessionCookie, port);
  return port;
}

void Server::run() {
  if (impl_->port < 0) throw Error("dashboard: run() before bind()");
  // stop() only ends the feed; this thread closes the listener once it runs, so a stop() that
  // comes before listen_after_bind() has started (a signal right after bind) is not lost.
  std::atomic<bool> done{false};
  std::thread closer([this, &done] {
    impl_->feed.wait_stopped();
    while (!impl_->http.is_running() && !done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    impl_->http.stop();
  });
  impl_->http.listen_after_bind();
  done = true;
  impl_->feed.stop();
  closer.join();
}

void Server::stop() { impl_->feed.stop(); }

}  // namespace lane::dashboard
