#pragma once
// One HTTP exchange as lane_net sees it: the request to send, the answer, and the outcome of an
// attempt (an answer, or a transport failure with what is known about it).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lane::net {

struct Response {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string header(const std::string& name) const;
};

struct Request {
  std::string method = "GET";
  std::string url;                // absolute: scheme, host, path and query
  std::string body;               // sent with Content-Type when non-empty or for POST/PUT/PATCH
  std::string content_type = "application/json";
  std::string accept = "application/json";
  std::string bearer_token;       // empty: no Authorization header. Never logged.
  std::vector<std::string> headers;  // further "Name: value" lines
  long timeout_s = 60;            // whole transfer; 0 = none (followed logs, watches, downloads)
  long connect_timeout_s = 10;
  long stall_timeout_s = 0;       // fail when under 1 byte/s for this long; 0 = never
  bool follow_redirects = false;  // http(s) redirects only
  // When set, a 2xx body is handed over in chunks as it arrives instead of being collected.
  // Returning false stops the transfer.
  std::function<bool(std::string_view)> on_data;
  // With on_data: called once before the first chunk with the status and headers of the answer
  // being streamed. Returning false stops the transfer.
  std::function<bool(const Response&)> on_head;
};

// Outcome of one attempt: either an HTTP answer or a transport failure.
struct Outcome {
  Response response;
  bool transport_failed = false;
  bool request_sent = false;      // false: the server certainly saw nothing (connect failed)
  bool tls_failure = false;       // certificate problems: retrying will not help
  bool permanent = false;         // a malformed URL or unsupported scheme: retrying will not help
  bool stopped_by_callback = false;
  bool streamed_any = false;      // on_data saw part of the body: a retry would repeat it
  std::string error;              // curl's message for transport failures
  std::string detail;             // curl's specific account of it (host, port, bytes missing)
};

// Methods whose repetition cannot change the result (everything but POST).
bool idempotent(const std::string& method);

// `text` percent-encoded for a URL query or form value (RFC 3986 unreserved characters kept).
std::string url_escape(const std::string& text);

// One "Name: value" header line: the name lower-cased, the value without surrounding
// whitespace; nullopt for a line that is not a header (the status line, the blank line).
std::optional<std::pair<std::string, std::string>> parse_header_line(std::string_view line);

}  // namespace lane::net
