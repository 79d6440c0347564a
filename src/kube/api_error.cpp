#include "kube/api_error.h"

#include <fmt/format.h>

namespace lane::kube {
namespace {

std::string describe(const std::string& message, const std::vector<StatusCause>& causes) {
  std::string out = message;
  for (const auto& c : causes) {
    // The Status message usually already lists the causes; add only those it lacks.
    std::string line = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (out.find(c.message) == std::string::npos) out += "\n  " + line;
  }
  return out;
}

}  // namespace

ApiError::ApiError(int http_code, std::string reason, std::string message,
                   std::vector<StatusCause> causes, int retry_after_s)
    : lane::Error(describe(message, causes)),
      http_code_(http_code),
      reason_(std::move(reason)),
      status_message_(std::move(message)),
      causes_(std::move(causes)),
      retry_after_s_(retry_after_s) {}

std::string default_reason(int http_code) {
  switch (http_code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "Unknown";
  }
}

ApiError api_error_from_response(int http_code, const std::string& body, const std::string& context) {
  std::string reason = default_reason(http_code);
  std::string message;
  std::vector<StatusCause> causes;
  int retry_after = 0;
  auto status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    reason = status.value("reason", reason);
    message = status.value("message", "");
    if (auto d = status.find("details"); d != status.end() && d->is_object()) {
      retry_after = d->value("retryAfterSeconds", 0);
      if (auto cs = d->find("causes"); cs != d->end() && cs->is_array()) {
        for (const auto& c : *cs) {
          causes.push_back({c.value("reason", ""), c.value("field", ""), c.value("message", "")});
        }
      }
    }
  } else {
    message = body.substr(0, 300);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  }
  if (message.empty()) message = fmt::format("HTTP {} {}", http_code, reason);
  // What to do about it: the server's text names neither fix.
  std::string hint;
  if (http_code == 401)
    hint = "; the API server refused the credentials of the kubeconfig's current user: get new ones (e.g. az aks "
           "get-credentials, a fresh token) or pick another context with --context";
  else if (http_code == 403)
    hint = "; the kubeconfig's user may not do this: ask the cluster administrator for a Role (or ClusterRole) "
           "granting it";
  return ApiError(http_code, reason, fmt::format("{}: {} ({}){}", context, message, reason, hint), causes,
                  retry_after);
}

namespace {

// Reads a quoted-string at h[i] (RFC 7230 3.2.6: backslash escapes); i ends past the closing quote.
std::string read_quoted(std::string_view h, size_t& i) {
  std::string out;
  for (++i; i < h.size() && h[i] != '"'; ++i) {
    if (h[i] == '\\' && i + 1 < h.size()) ++i;
    out += h[i];
  }
  ++i;
  return out;
}

}  // namespace

std::vector<std::string> warning_texts(std::string_view h) {
  std::vector<std::string> out;
  size_t i = 0;
  auto skip = [&](auto pred) {
    while (i < h.size() && pred(h[i])) ++i;
  };
  auto space = [](char c) { return c == ' ' || c == '\t'; };
  auto token = [](char c) { return c != ' ' && c != '\t' && c != ','; };
  while (i < h.size()) {
    skip([](char c) { return c == ' ' || c == '\t' || c == ','; });
    skip(token);  // warn-code
    skip(space);
    skip(token);  // warn-agent
    skip(space);
    if (i >= h.size() || h[i] != '"') {  // not a warning value: on to the next one
      skip([](char c) { return c != ','; });
      continue;
    }
    std::string text = read_quoted(h, i);
    skip(space);
    if (i < h.size() && h[i] == '"') read_quoted(h, i);  // warn-date
    if (!text.empty()) out.push_back(std::move(text));
  }
  return out;
}

}  // namespace lane::kube
