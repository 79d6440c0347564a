#pragma once
// The credential to send with the next request: a static token, a token file that is re-read
// when it changes (projected service-account tokens rotate about hourly), or an exec plugin's
// ExecCredential, cached until its expirationTimestamp and re-run after a 401.
// Nothing here is ever printed: errors name the source, never the secret.
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "kube/kubeconfig.h"
#include "net/tls.h"

namespace lane::kube {

// Larger bearer tokens are refused with a clear error: an HTTP header that size is rejected by
// libcurl ("Out of memory") and by API servers alike.
inline constexpr size_t kMaxBearerTokenBytes = 64 * 1024;

struct Credential {
  std::string bearer_token;     // empty: none
  std::string client_cert_pem;  // mutual TLS (empty: none)
  std::string client_key_pem;
};

// TLS for a connection to the API server: the CA from the kubeconfig, the client certificate
// of `credential`, verification on unless the kubeconfig says insecure-skip-tls-verify.
net::TlsOptions tls_options(const Connection& connection, const Credential& credential);

// Runs the plugin once and parses its ExecCredential (exec_plugin.cpp).
struct ExecResult {
  Credential credential;
  std::optional<std::chrono::system_clock::time_point> expires;
};
ExecResult run_exec_plugin(const ExecConfig& exec, const Connection& cluster);

// Parses an RFC 3339 timestamp (2026-11-22T00:46:03Z, fractions and offsets allowed).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

class CredentialSource {
 public:
  explicit CredentialSource(const Connection& connection);

  // The credential to use now (runs the plugin or re-reads the token file when needed).
  Credential current();
  // The server answered 401: drop cached plugin output so that the next current() re-runs it,
  // and force a token-file re-read. Returns true when a retry may help.
  bool invalidate();

 private:
  Connection connection_;
  std::mutex mutex_;
  std::optional<Credential> exec_cached_;
  std::optional<std::chrono::system_clock::time_point> exec_expires_;
  std::string file_token_;
  std::filesystem::file_time_type file_mtime_{};
  bool file_loaded_ = false;
};

}  // namespace lane::kube
