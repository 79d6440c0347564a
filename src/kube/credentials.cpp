#include "kube/credentials.h"

#include <ctime>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::kube {
namespace fs = std::filesystem;

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  // system_clock counts nanoseconds in 64 bits (until 2262): clamp far-future expiries.
  if (tm.tm_year > 2200) tm.tm_year = 2200;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  auto t = std::chrono::system_clock::from_time_t(timegm(&tm));
  size_t i = static_cast<size_t>(consumed);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int hh = 0, mm = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hh, &mm) != 2) return std::nullopt;
    auto offset = std::chrono::hours(hh) + std::chrono::minutes(mm);
    t = text[i] == '+' ? t - offset : t + offset;
  } else if (i >= text.size() || (text[i] != 'Z' && text[i] != 'z')) {
    return std::nullopt;
  }
  return t;
}

CredentialSource::CredentialSource(const Connection& connection) : connection_(connection) {}

Credential CredentialSource::current() {
  std::lock_guard<std::mutex> lock(mutex_);
  Credential c;
  c.client_cert_pem = connection_.client_cert_pem;
  c.client_key_pem = connection_.client_key_pem;
  c.bearer_token = connection_.token;
  if (!connection_.token_file.empty()) {
    std::error_code ec;
    auto mtime = fs::last_write_time(connection_.token_file, ec);
    if (ec) {
      if (!file_loaded_) {
        throw lane::Error(fmt::format("cannot read token file {}", connection_.token_file.string()));
      }
    } else if (!file_loaded_ || mtime != file_mtime_) {
      std::string t = lane::read_file(connection_.token_file);
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
      file_token_ = t;
      file_mtime_ = mtime;
      file_loaded_ = true;
    }
    c.bearer_token = file_token_;
  }
  if (connection_.exec) {
    // Renew a little before expiry so a request does not race the deadline.
    auto now = std::chrono::system_clock::now() + std::chrono::seconds(10);
    if (!exec_cached_ || (exec_expires_ && *exec_expires_ <= now)) {
      ExecResult r = run_exec_plugin(*connection_.exec, connection_);
      exec_cached_ = r.credential;
      exec_expires_ = r.expires;
    }
    if (!exec_cached_->bearer_token.empty()) c.bearer_token = exec_cached_->bearer_token;
    if (!exec_cached_->client_cert_pem.empty()) {
      c.client_cert_pem = exec_cached_->client_cert_pem;
      c.client_key_pem = exec_cached_->client_key_pem;
    }
  }
  if (c.bearer_token.size() > kMaxBearerTokenBytes)
    throw lane::Error(fmt::format(
        "the bearer token of context '{}' ({}) is {} bytes; tokens over {} KiB cannot be sent in an HTTP header "
        "(API servers refuse them): check the user's token/tokenFile in the kubeconfig",
        connection_.context,
        connection_.exec ? "from the exec plugin" : !connection_.token_file.empty() ? connection_.token_file.string() : "token",
        c.bearer_token.size(), kMaxBearerTokenBytes / 1024));
  return c;
}

bool CredentialSource::invalidate() {
  std::lock_guard<std::mutex> lock(mutex_);
  bool helps = false;
  if (connection_.exec) {
    exec_cached_.reset();
    helps = true;
  }
  if (!connection_.token_file.empty()) {
    file_loaded_ = false;
    helps = true;
  }
  return helps;
}

net::TlsOptions tls_options(const Connection& connection, const Credential& credential) {
  net::TlsOptions tls;
  tls.verify = !connection.insecure_skip_tls_verify;
  tls.ca_pem = connection.ca_pem;
  tls.client_cert_pem = credential.client_cert_pem;
  tls.client_key_pem = credential.client_key_pem;
  return tls;
}

}  // namespace lane::kube
