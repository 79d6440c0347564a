#include "kube/kube_client.h"

#include <algorithm>
#include <iostream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "net/redact.h"
#include "net/retry.h"

namespace lane::kube {
namespace {

std::string query_join(const std::vector<std::string>& parts) {
  std::string q;
  for (const auto& p : parts) q += (q.empty() ? "?" : "&") + p;
  return q;
}

std::vector<std::string> selector_params(const ListOptions& o) {
  std::vector<std::string> p;
  if (!o.label_selector.empty()) p.push_back("labelSelector=" + url_encode(o.label_selector));
  if (!o.field_selector.empty()) p.push_back("fieldSelector=" + url_encode(o.field_selector));
  return p;
}

// Writes ask the API server to refuse unknown fields (400) instead of dropping them with a warning.
constexpr const char* kStrictFields = "?fieldValidation=Strict";

std::mt19937_64& rng() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

// The API server sends list items without kind/apiVersion (only the XList carries them);
// the resource we listed names them, as client-go's typed lists do. Kept if present.
void stamp_type(const Resource& r, Json& item) {
  if (!item.is_object()) return;
  auto kind = item.find("kind");
  if (kind == item.end() || !kind->is_string() || kind->get_ref<const std::string&>().empty()) item["kind"] = r.kind;
  auto api = item.find("apiVersion");
  if (api == item.end() || !api->is_string() || api->get_ref<const std::string&>().empty()) {
    item["apiVersion"] = r.api_version();
  }
}

}  // namespace

std::string random_hex(size_t bytes) {
  std::string out;
  for (size_t i = 0; i < bytes; ++i) out += fmt::format("{:02x}", static_cast<unsigned>(rng()() & 0xFF));
  return out;
}

KubeClient::KubeClient(Connection connection, RetryPolicy retry)
    : connection_(std::move(connection)), retry_(retry), credentials_(connection_) {
  shared_ = std::make_unique<net::Transport>();
  warning_sink_ = [](const std::string& text) { std::cerr << "Warning: " << text << std::endl; };
}

void KubeClient::set_warning_sink(std::function<void(const std::string&)> sink) {
  std::lock_guard<std::mutex> lock(warning_mutex_);
  warning_sink_ = std::move(sink);
}

void KubeClient::report_warnings(const net::Response& response) {
  const std::string header = response.header("warning");
  if (header.empty()) return;
  std::lock_guard<std::mutex> lock(warning_mutex_);
  for (const auto& text : warning_texts(header)) {
    if (warned_.insert(text).second && warning_sink_) warning_sink_(text);
  }
}

KubeClient::~KubeClient() = default;

net::Request KubeClient::request_for(const std::string& method, const std::string& path) const {
  net::Request req;
  req.method = method;
  req.url = connection_.server + path;
  return req;
}

net::Response KubeClient::execute(net::Transport& transport, net::Request req, const std::string& context) {
  net::RetryHooks hooks;
  // A 401: an expired plugin token or a rotated service-account token; fetch it again once.
  hooks.reauthenticate = [&] { return credentials_.invalidate(); };
  net::Outcome out = net::send_with_retries(
      [&] {
        const Credential credential = credentials_.current();
        req.bearer_token = credential.bearer_token;
        ++requests_sent_;
        return transport.perform(req, tls_options(connection_, credential));
      },
      net::idempotent(req.method), retry_, hooks);
  std::fill(req.bearer_token.begin(), req.bearer_token.end(), '\0');
  if (out.transport_failed) {
    const std::string message = fmt::format("{}: cannot reach {}: {}", context, net::redact_url(connection_.server),
                                            net::redact_url(out.error));
    if (out.permanent) throw TransportError(message + " (check the server URL in the kubeconfig)", false);
    if (out.tls_failure) {
      throw TransportError(message + " (TLS verification failed: check certificate-authority in the kubeconfig)",
                           false);
    }
    // Not retried: a POST that may have reached the server, a stream that already delivered
    // data (the caller would see it twice), or the attempts ran out.
    throw TransportError(message, out.request_sent);
  }
  net::Response& resp = out.response;
  report_warnings(resp);
  if (resp.status >= 200 && resp.status < 300) return std::move(resp);  // a list page: up to MBs
  throw api_error_from_response(static_cast<int>(resp.status), resp.body, context);
}

net::Response KubeClient::request(const std::string& method, const std::string& path, const std::string& body,
                                  const std::string& content_type) {
  net::Request req = request_for(method, path);
  req.body = body;
  req.content_type = content_type;
  std::lock_guard<std::mutex> lock(shared_mutex_);
  return execute(*shared_, std::move(req), method + " " + path.substr(0, path.find('?')));
}

namespace {
std::string where(const Resource& r, const std::string& ns, const std::string& name) {
  std::string w = r.plural;
  if (r.namespaced && !ns.empty()) w += " " + ns + "/";
  else w += " ";
  return w + name;
}
}  // namespace

Json KubeClient::get(const Resource& r, const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(shared_mutex_);
  net::Request req = request_for("GET", r.object_path(ns, name));
  return Json::parse(execute(*shared_, req, "get " + where(r, ns, name)).body);
}

std::optional<Json> KubeClient::try_get(const Resource& r, const std::string& ns, const std::string& name) {
  try {
    return get(r, ns, name);
  } catch (const ApiError& e) {
    if (e.not_found()) return std::nullopt;
    throw;
  }
}

std::unique_ptr<net::Transport> KubeClient::take_list_transport() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!list_pool_.empty()) {
      auto t = std::move(list_pool_.back());
      list_pool_.pop_back();
      return t;
    }
  }
  return std::make_unique<net::Transport>();
}

void KubeClient::give_back_list_transport(std::unique_ptr<net::Transport> t) {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  list_pool_.push_back(std::move(t));
}

std::string KubeClient::list_pages(const Resource& r, const std::string& ns, const ListOptions& options,
                                   const ListPageParser& parse_page, const std::function<void()>& restart) {
  const std::string context = "list " + r.plural + (ns.empty() ? "" : " in " + ns);
  auto transport = take_list_transport();
  for (int attempt = 0;; ++attempt) {
    std::string cont, resource_version;
    try {
      do {
        auto params = selector_params(options);
        if (options.limit > 0) params.push_back("limit=" + std::to_string(options.limit));
        if (!cont.empty()) params.push_back("continue=" + url_encode(cont));
        net::Request req = request_for("GET", r.collection_path(ns) + query_join(params));
        net::Response resp = execute(*transport, std::move(req), context);
        ListPageMeta meta;
        try {
          meta = parse_page(resp.body);
        } catch (const nlohmann::json::exception& e) {
          throw lane::Error(fmt::format("{}: the API server sent malformed JSON: {}", context, e.what()));
        }
        cont = std::move(meta.continue_token);
        resource_version = std::move(meta.resource_version);
      } while (!cont.empty());
      give_back_list_transport(std::move(transport));
      return resource_version;
    } catch (const ApiError& e) {
      // The continue token expired (compaction): start over, as client-go's pager does.
      if (!(e.gone() && !cont.empty() && attempt < 2)) throw;
      if (restart) restart();
    }
  }
}

ListResult KubeClient::list(const Resource& r, const std::string& ns, const ListOptions& options) {
  ListResult result;
  result.resource_version = list_pages(
      r, ns, options,
      [&](const std::string& body) {
        Json page = parse_pruned(body, options.drop);
        auto& items = page["items"];
        if (items.is_array()) {
          result.items.reserve(result.items.size() + items.size());
          for (auto& it : items) {
            stamp_type(r, it);
            result.items.push_back(std::move(it));
          }
        }
        ListPageMeta meta;
        const auto& m = page["metadata"];
        if (m.is_object()) {
          meta.continue_token = m.value("continue", "");
          meta.resource_version = m.value("resourceVersion", "");
        }
        return meta;
      },
      [&] { result.items.clear(); });
  return result;
}

Json KubeClient::create(const Resource& r, const std::string& ns, const Json& object) {
  std::lock_guard<std::mutex> lock(shared_mutex_);
  net::Request req = request_for("POST", r.collection_path(ns) + kStrictFields);
  req.body = object.dump();
  std::string name = object.contains("metadata") ? object["metadata"].value("name", "") : "";
  return Json::parse(execute(*shared_, req, "create " + where(r, ns, name)).body);
}

std::string KubeClient::new_submission_id() { return random_hex(12); }

namespace {
std::string submission_id_of(const Json& object) {
  return object["metadata"].value("annotations", Json::object()).value(kSubmissionIdAnnotation, "");
}
}  // namespace

Json KubeClient::create_idempotent(const Resource& r, const std::string& ns, Json object,
                                   std::string submission_id) {
  const std::string token = submission_id.empty() ? new_submission_id() : std::move(submission_id);
  object["metadata"]["annotations"][kSubmissionIdAnnotation] = token;
  const std::string name = object["metadata"].value("name", "");
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      return create(r, ns, object);
    } catch (const TransportError& e) {
      if (!e.request_sent()) throw;
    } catch (const ApiError& e) {
      // AlreadyExists can be our own POST, re-sent by libcurl on a fresh connection after the
      // first answer was lost; the token tells.
      if (e.http_code() < 500 && !e.already_exists()) throw;
      if (e.already_exists()) {
        auto existing = try_get(r, ns, name);
        if (existing && submission_id_of(*existing) == token) return *existing;
        throw;
      }
    }
    // The answer was lost: did our POST create it?
    auto existing = try_get(r, ns, name);
    if (existing) {
      if (submission_id_of(*existing) == token) return *existing;
      throw ApiError(409, "AlreadyExists",
                     fmt::format("create {}: {} already exists (created by another submission)", where(r, ns, name),
                                 r.kind),
                     {});
    }
  }
  throw TransportError(fmt::format("create {}: the API server did not confirm the creation; "
                                   "check with 'lanectl describe' before resubmitting",
                                   where(r, ns, name)),
                       true);
}

Json KubeClient::replace(const Resource& r, const std::string& ns, const std::string& name, const Json& object) {
  std::lock_guard<std::mutex> lock(shared_mutex_);
  net::Request req = request_for("PUT", r.object_path(ns, name) + kStrictFields);
  req.body = object.dump();
  return Json::parse(execute(*shared_, req, "replace " + where(r, ns, name)).body);
}

Json KubeClient::merge_patch(const Resource& r, const std::string& ns, const std::string& name, const Json& patch) {
  std::lock_guard<std::mutex> lock(shared_mutex_);
  net::Request req = request_for("PATCH", r.object_path(ns, name) + kStrictFields);
  req.body = patch.dump();
  req.content_type = "application/merge-patch+json";
  return Json::parse(execute(*shared_, req, "patch " + where(r, ns, name)).body);
}

namespace {
Json delete_options(const std::string& propagation) {
  Json options{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!propagation.empty()) options["propagationPolicy"] = propagation;
  return options;
}
}  // namespace

void KubeClient::send_delete(const Resource& r, const std::string& ns, const std::string& name,
                             const Json& options) {
  std::lock_guard<std::mutex> lock(shared_mutex_);
  net::Request req = request_for("DELETE", r.object_path(ns, name));
  if (!options.is_null()) req.body = options.dump();
  execute(*shared_, req, "delete " + where(r, ns, name));
}

void KubeClient::remove(const Resource& r, const std::string& ns, const std::string& name,
                        const std::string& propagation) {
  send_delete(r, ns, name, propagation.empty() ? Json() : delete_options(propagation));
}

bool KubeClient::remove_if_submitted(const Resource& r, const std::string& ns, const std::string& name,
                                     const std::string& submission_id, const std::string& propagation) {
  if (submission_id.empty()) return false;
  const auto existing = try_get(r, ns, name);
  if (!existing || submission_id_of(*existing) != submission_id) return false;
  Json options = delete_options(propagation);
  options["preconditions"] = {{"uid", (*existing)["metadata"].value("uid", "")}};
  try {
    send_delete(r, ns, name, options);
  } catch (const ApiError& e) {
    // 404: gone already (a retried DELETE whose first answer was lost); 409: the uid differs, ours
    // was replaced by another object of the name, which stays.
    if (e.http_code() != 404 && e.http_code() != 409) throw;
  }
  return true;
}

WatchEnd KubeClient::watch(const Resource& r, const std::string& ns, const ListOptions& options,
                           std::string& resource_version, int timeout_s,
                           const std::function<bool(const std::string&, const Json&)>& on_event) {
  auto params = selector_params(options);
  params.push_back("watch=1");
  params.push_back("allowWatchBookmarks=true");
  params.push_back("timeoutSeconds=" + std::to_string(timeout_s));
  if (!resource_version.empty()) params.push_back("resourceVersion=" + url_encode(resource_version));
  net::Transport stream;  // a long-lived stream gets its own connection
  net::Request req = request_for("GET", r.collection_path(ns) + query_join(params));
  req.timeout_s = timeout_s + 30;
  std::string pending;
  bool gone = false, stopped = false;
  std::optional<Json> error_status;  // exceptions must not cross libcurl's C frames
  req.on_data = [&](std::string_view chunk) {
    pending.append(chunk);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (line.empty()) continue;
      Json ev = Json::parse(line, nullptr, false);
      if (!ev.is_object()) continue;
      std::string type = ev.value("type", "");
      const Json& obj = ev["object"];
      if (type == "ERROR") {
        if (obj.value("code", 0) == 410) {
          gone = true;
          return false;
        }
        error_status = obj;
        return false;
      }
      if (obj.is_object() && obj.contains("metadata")) {
        resource_version = obj["metadata"].value("resourceVersion", resource_version);
      }
      if (type == "BOOKMARK") continue;
      if (!on_event(type, obj)) {
        stopped = true;
        return false;
      }
    }
    return true;
  };
  try {
    execute(stream, req, "watch " + r.plural);
  } catch (const ApiError& e) {
    if (e.gone()) return WatchEnd::kGone;
    throw;
  } catch (const TransportError&) {
    if (gone) return WatchEnd::kGone;
    if (stopped) return WatchEnd::kStopped;
    return WatchEnd::kTimeout;  // dropped mid-stream: resume from resource_version
  }
  if (error_status) {
    throw api_error_from_response(error_status->value("code", 500), error_status->dump(), "watch " + r.plural);
  }
  if (gone) return WatchEnd::kGone;
  return stopped ? WatchEnd::kStopped : WatchEnd::kTimeout;
}

bool KubeClient::wait_gone(const Resource& r, const std::string& ns, const std::string& name,
                           std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  ListOptions opts;
  opts.field_selector = "metadata.name=" + name;
  opts.limit = 0;
  do {
    ListResult lr = list(r, ns, opts);
    if (lr.items.empty()) return true;
    std::string rv = lr.resource_version;
    bool gone = false;
    WatchEnd end = WatchEnd::kTimeout;
    while (!gone && end != WatchEnd::kGone && std::chrono::steady_clock::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
      end = watch(r, ns, opts, rv, static_cast<int>(std::max<int64_t>(1, left.count())),
                  [&](const std::string& type, const Json&) { return !(gone = type == "DELETED"); });
    }
    if (gone) return true;
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

std::optional<Json> KubeClient::wait_for(const Resource& r, const std::string& ns, const std::string& name,
                                         const std::function<bool(const Json&)>& done, std::chrono::seconds timeout,
                                         const std::function<void(const Json&)>& on_change) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  ListOptions opts;
  opts.field_selector = "metadata.name=" + name;
  opts.limit = 0;
  std::optional<Json> found;
  int gone_in_a_row = 0;  // 410 answers to back-to-back watches: relist after a jittered pause
  while (std::chrono::steady_clock::now() < deadline) {
    if (gone_in_a_row > 1) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      std::this_thread::sleep_for(std::min(net::backoff_delay(retry_, gone_in_a_row - 1, nullptr), std::max(left, std::chrono::milliseconds(0))));
    }
    ListResult lr = list(r, ns, opts);
    std::string rv = lr.resource_version;
    for (const auto& it : lr.items) {
      if (on_change) on_change(it);
      if (done(it)) return it;
    }
    while (std::chrono::steady_clock::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
      int t = static_cast<int>(std::max<int64_t>(1, left.count()));
      WatchEnd end = watch(r, ns, opts, rv, t, [&](const std::string& type, const Json& obj) {
        if (type == "DELETED") return true;
        if (on_change) on_change(obj);
        if (done(obj)) {
          found = obj;
          return false;
        }
        return true;
      });
      if (found) return found;
      if (end == WatchEnd::kGone) {
        ++gone_in_a_row;
        break;  // relist
      }
      gone_in_a_row = 0;
    }
  }
  return std::nullopt;
}

void KubeClient::stream_logs(const std::string& ns, const std::string& pod, const LogOptions& o,
                             const std::function<void(std::string_view)>& sink) {
  std::vector<std::string> params;
  if (!o.container.empty()) params.push_back("container=" + url_encode(o.container));
  if (o.follow) params.push_back("follow=true");
  if (o.tail_lines) params.push_back("tailLines=" + std::to_string(*o.tail_lines));
  if (o.since_seconds) params.push_back("sinceSeconds=" + std::to_string(*o.since_seconds));
  if (!o.since_time.empty()) params.push_back("sinceTime=" + url_encode(o.since_time));
  if (o.timestamps) params.push_back("timestamps=true");
  net::Transport stream;
  net::Request req = request_for("GET", resources::kPod.object_path(ns, pod) + "/log" + query_join(params));
  req.timeout_s = o.follow ? 0 : 300;
  bool started = false;
  req.on_data = [&](std::string_view chunk) {
    started = true;
    sink(chunk);
    return true;
  };
  try {
    execute(stream, req, "logs " + ns + "/" + pod);
  } catch (const TransportError&) {
    if (!started) throw;
    // The stream dropped after output began: kubectl ends here too; say so on stderr.
    throw TransportError(fmt::format("log stream of {}/{} was interrupted", ns, pod), true);
  }
}

int KubeClient::exec(const PodExecRequest& request, PodExecIo& io) {
  const std::string context = (request.attach ? "attach to pod " : "exec in pod ") + request.ns + "/" + request.pod;
  auto open = [&] {
    return std::make_unique<WebSocket>(connection_, credentials_.current(), pod_exec_path(request),
                                       pod_exec_protocols(), context);
  };
  std::unique_ptr<WebSocket> socket;
  try {
    socket = open();
  } catch (const ApiError& e) {
    if (!e.unauthorized() || !credentials_.invalidate()) throw;
    socket = open();  // an expired token: the source fetched a fresh one
  }
  ++requests_sent_;
  return run_pod_exec(*socket, request, io);
}

}  // namespace lane::kube
