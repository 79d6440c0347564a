#pragma once
// Typed access to the Kubernetes REST API: get/list/create/replace/patch/delete, watches and
// pod logs, with lane_net's retries (exponential backoff + jitter, Retry-After honoured) for
// requests that are safe to repeat. POSTs are retried only when the server certainly did not act on
// them (429, connection refused); create_idempotent() recovers a lost POST answer by reading
// the object back and comparing a submission id it stamped on it.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/api_error.h"
#include "kube/credentials.h"
#include "kube/kubeconfig.h"
#include "kube/pod_exec.h"
#include "kube/pruned_parse.h"
#include "kube/resource.h"
#include "net/http.h"
#include "net/retry.h"
#include "net/transport.h"

namespace lane::kube {

using Json = nlohmann::json;

using RetryPolicy = net::RetryPolicy;

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int limit = 500;  // page size; 0 = no paging
  // list() only: parts of each page the caller never reads, dropped while parsing
  // (e.g. {"items", "*", "metadata", "managedFields"}); empty = keep everything.
  std::vector<JsonPath> drop;
};

struct ListResult {
  std::vector<Json> items;
  std::string resource_version;  // of the list: the point a watch resumes from
};

// What list_pages() needs from each page: metadata.continue ("" on the last page) and
// metadata.resourceVersion.
struct ListPageMeta {
  std::string continue_token;
  std::string resource_version;
};

// Parses one list page's body (JSON text) into the caller's own structures; throws
// nlohmann::json::exception on malformed JSON.
using ListPageParser = std::function<ListPageMeta(const std::string& body)>;

struct LogOptions {
  std::string container;
  bool follow = false;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> since_seconds;
  std::string since_time;  // RFC 3339
  bool timestamps = false;
};

enum class WatchEnd { kTimeout, kGone, kStopped };

// Annotation create_idempotent() stamps on objects to recognise its own submission.
inline constexpr const char* kSubmissionIdAnnotation = "lanectl.io/submission-id";

class KubeClient {
 public:
  explicit KubeClient(Connection connection, RetryPolicy retry = {});
  ~KubeClient();

  const Connection& connection() const { return connection_; }
  const std::string& default_namespace() const { return connection_.ns; }

  Json get(const Resource& r, const std::string& ns, const std::string& name);
  std::optional<Json> try_get(const Resource& r, const std::string& ns, const std::string& name);
  // All pages (limit/continue); a 410 on a continue token restarts the list once.
  // Every item gets r.kind / r.api_version() when it lacks them: a real API server omits
  // them on list items, and callers (job_state's MPIJob vs Job rules) read `kind` from
  // listed, watched and fetched objects alike.
  ListResult list(const Resource& r, const std::string& ns, const ListOptions& options = {});
  // The same paging without building JSON trees: each page's body goes to `parse_page`
  // (for callers that read a few fields of thousands of objects, e.g. `lanectl list`).
  // `restart` is called before a list starts over after a 410 on a continue token: the
  // caller drops what it collected. Malformed JSON throws lane::Error naming the list.
  // Safe to call from several threads at once: each call takes its own pooled connection.
  // Returns the resourceVersion of the list.
  std::string list_pages(const Resource& r, const std::string& ns, const ListOptions& options,
                         const ListPageParser& parse_page, const std::function<void()>& restart);
  // Writes (create, replace, merge_patch) ask for strict field validation: a field the server
  // does not know is a 400 naming it, never silently dropped.
  Json create(const Resource& r, const std::string& ns, const Json& object);
  // `submission_id` (new_submission_id(); empty: a fresh one) is stamped on the object; one
  // submission of several objects gives them all the same id, so that its rollback can tell
  // which of them it created (remove_if_submitted).
  Json create_idempotent(const Resource& r, const std::string& ns, Json object, std::string submission_id = {});
  static std::string new_submission_id();
  Json replace(const Resource& r, const std::string& ns, const std::string& name, const Json& object);
  Json merge_patch(const Resource& r, const std::string& ns, const std::string& name, const Json& patch);
  // propagation: Background | Foreground | Orphan (empty: server default).
  void remove(const Resource& r, const std::string& ns, const std::string& name,
              const std::string& propagation = "Background");
  // Deletes the object if it carries `submission_id` (the create whose answer was lost did make
  // it); the DELETE is preconditioned on the uid read, so an object of the same name made since
  // by somebody else is never removed. Returns whether the submission had made it (now gone or
  // going); false when there is no such object, or it is another submission's.
  bool remove_if_submitted(const Resource& r, const std::string& ns, const std::string& name,
                           const std::string& submission_id, const std::string& propagation = "Background");

  // One watch connection from `resource_version` (updated as events and bookmarks arrive).
  // on_event(type, object) returns false to stop. kGone: the version is too old, relist.
  WatchEnd watch(const Resource& r, const std::string& ns, const ListOptions& options,
                 std::string& resource_version, int timeout_s,
                 const std::function<bool(const std::string&, const Json&)>& on_event);

  // list + watch until the named object is gone (a DELETED event, or absent from a list).
  // Returns false when it is still there at the deadline (e.g. its finalizers wait on dependents).
  bool wait_gone(const Resource& r, const std::string& ns, const std::string& name, std::chrono::seconds timeout);

  // Where the texts of the API server's Warning headers go, each once per client (default:
  // "Warning: <text>" on stderr, as kubectl prints them). Called from any request's thread.
  void set_warning_sink(std::function<void(const std::string&)> sink);

  // list + watch until `done(object)` holds for the named object or the deadline passes.
  // Resumes dropped watches from the last version and relists after 410 Gone.
  // Returns the object that satisfied `done`, or nullopt on timeout.
  std::optional<Json> wait_for(const Resource& r, const std::string& ns, const std::string& name,
                               const std::function<bool(const Json&)>& done, std::chrono::seconds timeout,
                               const std::function<void(const Json&)>& on_change = {});

  // Streams a pod's log to `sink` as it arrives.
  void stream_logs(const std::string& ns, const std::string& pod, const LogOptions& options,
                   const std::function<void(std::string_view)>& sink);

  // Runs a command in a pod over the pods/exec WebSocket (request.attach: joins the container's
  // process over pods/attach, the same channel protocol); returns its exit code.
  int exec(const PodExecRequest& request, PodExecIo& io);

  // Low level: one request with the retry policy; throws ApiError for non-2xx answers.
  net::Response request(const std::string& method, const std::string& path, const std::string& body = "",
                        const std::string& content_type = "application/json");

  int requests_sent() const { return requests_sent_; }  // attempts, for tests and benchmarks

 private:
  // `req.url` is the path + query on the API server. Throws TransportError / ApiError.
  net::Response execute(net::Transport& transport, net::Request req, const std::string& context);
  net::Request request_for(const std::string& method, const std::string& path) const;
  void report_warnings(const net::Response& response);
  // DELETE of one object; `options` (a DeleteOptions) is the body unless null.
  void send_delete(const Resource& r, const std::string& ns, const std::string& name, const Json& options);
  // Connections for list_pages(): kept open between calls (keep-alive), one per concurrent list.
  std::unique_ptr<net::Transport> take_list_transport();
  void give_back_list_transport(std::unique_ptr<net::Transport> t);

  Connection connection_;
  RetryPolicy retry_;
  CredentialSource credentials_;
  std::mutex shared_mutex_;
  std::unique_ptr<net::Transport> shared_;  // reused connection for ordinary requests
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<net::Transport>> list_pool_;  // idle list_pages() connections
  std::atomic<int> requests_sent_{0};
  std::mutex warning_mutex_;
  std::function<void(const std::string&)> warning_sink_;
  std::set<std::string> warned_;  // texts already reported
};

std::string random_hex(size_t bytes);

}  // namespace lane::kube
