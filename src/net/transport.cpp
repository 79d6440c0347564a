#include "net/transport.h"

#include <curl/curl.h>

#include <algorithm>

#include "common/error.h"

namespace lane::net {
namespace {

struct Transfer {
  CURL* curl;
  const Request* request;
  Outcome* outcome;
  bool streaming_decided = false;
  bool stream = false;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (auto header = parse_header_line(std::string_view(data, size * n)))
    t->outcome->response.headers[header->first] = std::move(header->second);
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (!t->streaming_decided) {
    long code = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
    t->stream = t->request->on_data && code >= 200 && code < 300;
    t->streaming_decided = true;
  }
  if (t->stream) {
    t->outcome->streamed_any = true;
    if (!t->request->on_data(std::string_view(data, len))) {
      t->outcome->stopped_by_callback = true;
      return 0;  // aborts the transfer
    }
    return len;
  }
  t->outcome->response.body.append(data, len);
  return len;
}

bool sends_body(const Request& r) {
  return !r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
}

}  // namespace

Transport::Transport() {
  init_curl_once();
  curl_ = curl_easy_init();
  if (!curl_) throw lane::Error("libcurl: cannot create a handle");
}

Transport::~Transport() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Outcome Transport::perform(const Request& request, const TlsOptions& tls) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);  // options only; the connection cache survives, so keep-alive works
  Outcome outcome;
  Transfer transfer{c, &request, &outcome};
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, request.timeout_s);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  apply_tls(c, tls);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "User-Agent: lanectl");
  std::string auth, ctype;
  if (!request.bearer_token.empty()) {
    auth = "Authorization: Bearer " + request.bearer_token;
    headers = curl_slist_append(headers, auth.c_str());
  }
  for (const auto& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  if (request.method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (sends_body(request)) {
      ctype = "Content-Type: " + request.content_type;
      headers = curl_slist_append(headers, ctype.c_str());
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);

  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  // The token lived in `auth`; wipe our copy so it does not linger in freed memory.
  std::fill(auth.begin(), auth.end(), '\0');
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &outcome.response.status);
  if (rc == CURLE_OK) return outcome;
  if (outcome.stopped_by_callback && rc == CURLE_WRITE_ERROR) return outcome;
  outcome.transport_failed = true;
  outcome.error = curl_easy_strerror(rc);
  outcome.request_sent = !(rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                           rc == CURLE_COULDNT_RESOLVE_PROXY);
  outcome.tls_failure = rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
                        rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_CONNECT_ERROR ||
                        rc == CURLE_SSL_CIPHER;
  if (outcome.tls_failure) outcome.request_sent = false;
  outcome.permanent = rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT ||
                      rc == CURLE_BAD_FUNCTION_ARGUMENT || rc == CURLE_OUT_OF_MEMORY;
  if (outcome.permanent) outcome.request_sent = false;
  return outcome;
}

}  // namespace lane::net
