#include "net/transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

#include "common/error.h"

namespace lane::net {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CURL* new_handle() {
  init_curl_once();
  CURL* c = curl_easy_init();
  if (!c) throw lane::Error("libcurl: cannot create a handle");
  return c;
}

// The PEM blobs are copied by libcurl (CURL_BLOB_COPY).
void apply_tls(CURL* c, const TlsOptions& tls) {
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, tls.verify ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, tls.verify ? 2L : 0L);
  if (!tls.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(tls.ca_pem.data()), tls.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (!tls.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(tls.client_cert_pem.data()), tls.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(tls.client_key_pem.data()), tls.client_key_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
  }
}

struct Transfer {
  CURL* curl;
  const Request* request;
  Outcome* outcome;
  bool streaming_decided = false;
  bool stream = false;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * n);
  if (line.substr(0, 5) == "HTTP/") t->outcome->response.headers.clear();  // the next answer (redirect, 100)
  if (auto header = parse_header_line(line)) {  // a repeated header joins one list (RFC 9110 5.3)
    std::string& value = t->outcome->response.headers[header->first];
    value = value.empty() ? std::move(header->second) : value + ", " + header->second;
  }
  return size * n;
}

// Decides, at the first chunk, whether this answer is streamed (on_data, a 2xx) or collected.
// Returns false when on_head stops the transfer.
bool start_body(Transfer& t) {
  t.streaming_decided = true;
  long code = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &code);
  t.stream = t.request->on_data && code >= 200 && code < 300;
  if (!t.stream || !t.request->on_head) return true;
  t.outcome->response.status = code;
  return t.request->on_head(t.outcome->response);
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (!t->streaming_decided && !start_body(*t)) {
    t->outcome->stopped_by_callback = true;
    return 0;  // aborts the transfer
  }
  if (t->stream) {
    t->outcome->streamed_any = true;
    if (!t->request->on_data(std::string_view(data, len))) {
      t->outcome->stopped_by_callback = true;
      return 0;
    }
    return len;
  }
  t->outcome->response.body.append(data, len);
  return len;
}

bool sends_body(const Request& r) {
  return !r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
}

void set_transfer_options(CURL* c, const Request& request) {
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, request.timeout_s);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (request.stall_timeout_s > 0) {
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, request.stall_timeout_s);
  }
  if (request.follow_redirects) {
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  }
}

// The header lines of `request`; `owned` keeps the strings libcurl's list points into.
curl_slist* header_list(const Request& request, std::vector<std::string>& owned) {
  owned.push_back("Accept: " + request.accept);
  owned.push_back("User-Agent: lanectl");
  if (!request.bearer_token.empty()) owned.push_back("Authorization: Bearer " + request.bearer_token);
  owned.insert(owned.end(), request.headers.begin(), request.headers.end());
  if (request.method != "GET" && sends_body(request)) owned.push_back("Content-Type: " + request.content_type);
  curl_slist* list = nullptr;
  for (const auto& line : owned) list = curl_slist_append(list, line.c_str());
  return list;
}

void set_method(CURL* c, const Request& request) {
  if (request.method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    return;
  }
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (sends_body(request)) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
}

void record_failure(CURLcode rc, const char* detail, Outcome& outcome) {
  outcome.transport_failed = true;
  outcome.error = curl_easy_strerror(rc);
  outcome.detail = detail[0] ? detail : outcome.error;
  outcome.request_sent = !(rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                           rc == CURLE_COULDNT_RESOLVE_PROXY);
  outcome.tls_failure = rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
                        rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_CONNECT_ERROR ||
                        rc == CURLE_SSL_CIPHER;
  if (outcome.tls_failure) outcome.request_sent = false;
  outcome.permanent = rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT ||
                      rc == CURLE_BAD_FUNCTION_ARGUMENT || rc == CURLE_OUT_OF_MEMORY;
  if (outcome.permanent) outcome.request_sent = false;
}

}  // namespace

Transport::Transport() : curl_(new_handle()) {}

Transport::~Transport() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Outcome Transport::perform(const Request& request, const TlsOptions& tls) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);  // options only; the connection cache survives, so keep-alive works
  Outcome outcome;
  Transfer transfer{c, &request, &outcome};
  set_transfer_options(c, request);
  apply_tls(c, tls);
  set_method(c, request);
  std::vector<std::string> lines;
  curl_slist* headers = header_list(request, lines);
  char detail[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);

  CURLcode rc = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(headers);
  // The token lived in `lines`; wipe our copies so it does not linger in freed memory.
  for (auto& line : lines) std::fill(line.begin(), line.end(), '\0');
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &outcome.response.status);
  if (rc == CURLE_OK) return outcome;
  if (outcome.stopped_by_callback && rc == CURLE_WRITE_ERROR) return outcome;
  record_failure(rc, detail, outcome);
  return outcome;
}

RawConnection::RawConnection() : curl_(new_handle()) {}

RawConnection::~RawConnection() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

std::string RawConnection::connect(const std::string& url, const TlsOptions& tls, long connect_timeout_s) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  apply_tls(c, tls);
  if (CURLcode rc = curl_easy_perform(c); rc != CURLE_OK) return curl_easy_strerror(rc);
  curl_socket_t sock = CURL_SOCKET_BAD;
  curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &sock);
  fd_ = static_cast<int>(sock);
  return {};
}

RawConnection::Io RawConnection::send(std::string_view bytes) {
  Io io;
  const CURLcode rc = curl_easy_send(static_cast<CURL*>(curl_), bytes.data(), bytes.size(), &io.bytes);
  io.again = rc == CURLE_AGAIN;
  if (rc != CURLE_OK && !io.again) io.error = curl_easy_strerror(rc);
  return io;
}

RawConnection::Io RawConnection::receive(char* buffer, size_t size) {
  Io io;
  const CURLcode rc = curl_easy_recv(static_cast<CURL*>(curl_), buffer, size, &io.bytes);
  io.again = rc == CURLE_AGAIN;
  if (rc != CURLE_OK && !io.again) io.error = curl_easy_strerror(rc);
  return io;
}

}  // namespace lane::net
