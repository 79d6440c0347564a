#pragma once
// Errors from the Kubernetes API, typed by the `reason` of the Status object the server
// returned (api-concepts: NotFound 404, AlreadyExists/Conflict 409, Invalid 422, ...).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace lane::kube {

struct StatusCause {
  std::string reason;   // FieldValueInvalid, FieldValueRequired, ...
  std::string field;    // spec.template.spec.containers[0].image
  std::string message;
};

class ApiError : public lane::Error {
 public:
  ApiError(int http_code, std::string reason, std::string message, std::vector<StatusCause> causes,
           int retry_after_s = 0);

  int http_code() const { return http_code_; }
  const std::string& reason() const { return reason_; }
  const std::string& status_message() const { return status_message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  int retry_after_seconds() const { return retry_after_s_; }

  bool not_found() const { return http_code_ == 404; }
  bool already_exists() const { return reason_ == "AlreadyExists"; }
  bool conflict() const { return reason_ == "Conflict"; }
  bool forbidden() const { return http_code_ == 403; }
  bool unauthorized() const { return http_code_ == 401; }
  bool invalid() const { return http_code_ == 422 || reason_ == "Invalid"; }
  bool gone() const { return http_code_ == 410; }

 private:
  int http_code_;
  std::string reason_;
  std::string status_message_;
  std::vector<StatusCause> causes_;
  int retry_after_s_;
};

// The request never got an answer we can trust (connection dropped after sending, timeout).
// For non-idempotent requests the outcome is unknown: the caller must check.
class TransportError : public lane::Error {
 public:
  TransportError(const std::string& message, bool request_sent)
      : lane::Error(message), request_sent_(request_sent) {}
  // false: the connection was never established, so the server saw nothing.
  bool request_sent() const { return request_sent_; }

 private:
  bool request_sent_;
};

// Builds the error for a non-2xx answer. `context` is prefixed to the message ("create
// mpijobs runai-p/x"). The body is parsed as a Status when it is one; otherwise the raw text
// (trimmed) becomes the message.
ApiError api_error_from_response(int http_code, const std::string& body, const std::string& context);

// The reason Kubernetes uses for an HTTP code when the body is not a Status.
std::string default_reason(int http_code);

// The texts of a Warning header (RFC 7234 5.5: `299 - "text" ["date"]`, several joined by
// commas), as the API server sends them for deprecated APIs and dropped unknown fields.
std::vector<std::string> warning_texts(std::string_view header);

}  // namespace lane::kube
