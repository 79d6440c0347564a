#pragma once
// One libcurl easy handle bound to one API server: TLS set up from the Connection (the CA
// from the kubeconfig, client certificates, verification always on unless the kubeconfig
// says insecure-skip-tls-verify), keep-alive connection reuse across requests.
// Not thread-safe: KubeClient serialises use of its shared handle and gives each stream its own.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "kube/credentials.h"
#include "kube/kubeconfig.h"

namespace lane::kube {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct HttpRequest {
  std::string method = "GET";
  std::string path;               // path + query, appended to the server URL
  std::string body;
  std::string content_type = "application/json";
  long timeout_s = 60;            // 0 = none (followed logs)
  // When set, a 2xx body is handed over in chunks as it arrives instead of being collected.
  // Returning false stops the transfer.
  std::function<bool(std::string_view)> on_data;
};

// Outcome of one attempt: either an HTTP answer or a transport failure.
struct HttpOutcome {
  HttpResponse response;
  bool transport_failed = false;
  bool request_sent = false;      // false: the server certainly saw nothing (connect failed)
  bool tls_failure = false;       // certificate problems: retrying will not help
  bool permanent = false;         // a malformed URL or unsupported scheme: retrying will not help
  bool stopped_by_callback = false;
  bool streamed_any = false;      // on_data saw part of the body: a retry would repeat it
  std::string error;              // curl's message for transport failures
};

// One "Name: value" header line: the name lower-cased, the value without surrounding
// whitespace; nullopt for a line that is not a header (the status line, the blank line).
std::optional<std::pair<std::string, std::string>> parse_header_line(std::string_view line);

class HttpTransport {
 public:
  explicit HttpTransport(const Connection& connection);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  HttpOutcome perform(const HttpRequest& request, const Credential& credential);

 private:
  const Connection& connection_;
  void* curl_;  // CURL*
};

}  // namespace lane::kube
