#include "storage/anf/arm_client.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "net/http.h"
#include "net/redact.h"

namespace lane::storage::anf {
namespace {

using Clock = std::chrono::steady_clock;

// ARM's scale: the first retry after 0.5-1 s, doubling up to 16 s (never above the configured
// Retry-After cap), at least what the server's Retry-After asks for.
net::RetryPolicy arm_retry_policy(const AnfOptions& o) {
  net::RetryPolicy p;
  p.max_attempts = o.max_attempts;
  p.base_delay = std::chrono::seconds(1);
  p.max_delay = std::chrono::seconds(std::clamp(o.max_retry_after_s, 0, 16));
  p.max_retry_after = std::chrono::seconds(std::max(o.max_retry_after_s, 0));
  return p;
}

// "1 s", "0.7 s": whole seconds without a fraction.
std::string seconds_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return fmt::format("{} s", d.count() / 1000);
  return fmt::format("{:.1f} s", static_cast<double>(d.count()) / 1000.0);
}

bool terminal(const std::string& state) {
  return state == "Succeeded" || state == "Failed" || state == "Canceled";
}

std::string reason(long status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// ARM error body {"error":{"code","message"}} → code, message (empty when absent).
std::pair<std::string, std::string> arm_error_of(const Json& j) {
  const Json* e = &j;
  if (j.is_object() && j.contains("error") && j["error"].is_object()) e = &j["error"];
  std::string code = e->is_object() ? e->value("code", "") : "";
  std::string message = e->is_object() ? e->value("message", "") : "";
  return {code, message};
}

Json parse_or_null(const std::string& body) {
  if (body.empty()) return nullptr;
  try {
    return Json::parse(body);
  } catch (const Json::parse_error&) {
    return nullptr;
  }
}

}  // namespace

ArmClient::ArmClient(AnfOptions options, std::ostream* progress)
    : options_(std::move(options)), progress_(progress), retry_(arm_retry_policy(options_)) {}

ArmClient::~ArmClient() = default;

std::string ArmClient::scrub(std::string text) const {
  return net::redact(std::move(text), {options_.client_secret.reveal()});
}

net::Request ArmClient::request_to(const std::string& method, const std::string& url, const std::string& body) const {
  net::Request req;
  req.method = method;
  req.url = url;
  req.body = body;
  req.timeout_s = options_.request_timeout_s;
  req.connect_timeout_s = 15;
  return req;
}

const std::string& ArmClient::token(bool force_refresh) {
  if (!force_refresh && !token_.empty() && Clock::now() < token_expiry_) return token_;
  const std::string url = options_.authority_url + "/" + net::url_escape(options_.tenant_id) + "/oauth2/v2.0/token";
  const std::string form = "grant_type=client_credentials&client_id=" + net::url_escape(options_.client_id) +
                           "&client_secret=" + net::url_escape(options_.client_secret.reveal()) +
                           "&scope=" + net::url_escape(options_.scope);
  net::Request req = request_to("POST", url, form);
  req.content_type = "application/x-www-form-urlencoded";
  // Asking for a token twice is harmless: retried as an idempotent request.
  const net::Outcome out = net::send_with_retries(
      [&] {
        ++token_requests_;
        return transport_.perform(req);
      },
      /*idempotent=*/true, retry_);
  if (out.transport_failed)
    throw Error(scrub("ANF: cannot reach the token endpoint " + url + ": " + out.error +
                      " (check LANECTL_ANF_AUTHORITY_URL / authorityURL)"));
  const net::Response& r = out.response;
  Json j = parse_or_null(r.body);
  if (r.status != 200 || !j.is_object() || !j.contains("access_token")) {
    std::string err = j.is_object() ? j.value("error", "") : "";
    std::string desc = j.is_object() ? j.value("error_description", "") : "";
    std::string hint = err == "invalid_client"
                           ? "; check clientID/clientSecret (AZURE_CLIENT_ID/AZURE_CLIENT_SECRET) and that the secret has not expired"
                       : err == "unauthorized_client" || err == "invalid_request"
                           ? "; check tenantID (AZURE_TENANT_ID) and clientID"
                           : "";
    throw ArmError(r.status, err, desc,
                   scrub("ANF: authentication failed at " + url + ": HTTP " + std::to_string(r.status) +
                         (err.empty() ? "" : " " + err) + (desc.empty() ? "" : ": " + desc) + hint));
  }
  token_ = j["access_token"].get<std::string>();
  long expires_in = j.contains("expires_in") ? (j["expires_in"].is_string()
                                                    ? std::stol(j["expires_in"].get<std::string>())
                                                    : j["expires_in"].get<long>())
                                             : 3599;
  // Renew a little before the server would refuse it (clock skew, request latency).
  long margin = std::min<long>(120, expires_in / 10);
  token_expiry_ = Clock::now() + std::chrono::seconds(std::max<long>(0, expires_in - margin));
  return token_;
}

std::string ArmClient::url_for(const std::string& id_or_url) const {
  if (id_or_url.rfind("http://", 0) == 0 || id_or_url.rfind("https://", 0) == 0) {
    if (id_or_url.rfind(options_.arm_url + "/", 0) != 0)
      throw Error("ANF: the server sent a URL outside the ARM endpoint (" + options_.arm_url +
                  "); refusing to send credentials there: " + id_or_url.substr(0, 200));
    return id_or_url;
  }
  char sep = id_or_url.find('?') == std::string::npos ? '?' : '&';
  return options_.arm_url + id_or_url + sep + "api-version=" + options_.api_version;
}

// One logical request: bearer token (fetched again once on a 401), retried by lane_net's loop
// (429 / 5xx / transport failures; a POST only when the server certainly did not act).
net::Outcome ArmClient::call(const std::string& method, const std::string& id, const std::string& body) {
  net::Request req = request_to(method, url_for(id), body);
  net::RetryHooks hooks;
  hooks.reauthenticate = [&] {
    token(true);
    return true;
  };
  if (progress_) {
    hooks.on_retry = [&](const net::Outcome& o, std::chrono::milliseconds wait, int next) {
      *progress_ << "anf: " << method << " "
                 << (o.transport_failed ? std::string("connection failed") : "HTTP " + std::to_string(o.response.status))
                 << ", retrying in " << seconds_text(wait) << " (attempt " << next << " of " << retry_.max_attempts
                 << ")\n";
    };
  }
  return net::send_with_retries(
      [&] {
        req.bearer_token = token(false);
        return transport_.perform(req);
      },
      net::idempotent(method), retry_, hooks);
}

void ArmClient::fail(const std::string& method, const std::string& id, const net::Outcome& out) const {
  if (out.transport_failed)
    throw Error(scrub("ANF: " + method + " " + id + ": cannot reach " + options_.arm_url + ": " + out.error +
                      " (check LANECTL_ANF_ARM_URL / armURL)"));
  const net::Response& r = out.response;
  auto [code, message] = arm_error_of(parse_or_null(r.body));
  std::string text = "ANF: " + method + " " + id + ": HTTP " + std::to_string(r.status);
  if (!reason(r.status).empty()) text += " " + reason(r.status);
  if (!code.empty()) text += ": " + code;
  if (!message.empty()) text += ": " + message;
  if (code == "AuthorizationFailed") text += " (give the service principal a role such as Contributor on the NetApp account)";
  if (r.status == 429) text += " (still throttled after " + std::to_string(options_.max_attempts) + " attempts)";
  throw ArmError(r.status, code, message, scrub(text));
}

Json ArmClient::get(const std::string& id) {
  const net::Outcome out = call("GET", id, "");
  const net::Response& r = out.response;
  if (r.status != 200) fail("GET", id, out);
  Json j = parse_or_null(r.body);
  if (j.is_null()) throw Error("ANF: GET " + id + ": the answer is not JSON");
  return j;
}

std::optional<Json> ArmClient::try_get(const std::string& id) {
  const net::Outcome out = call("GET", id, "");
  const net::Response& r = out.response;
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) fail("GET", id, out);
  return parse_or_null(r.body);
}

std::vector<Json> ArmClient::list(const std::string& collection_id) {
  std::vector<Json> out;
  std::string next = collection_id;
  for (int page = 0; !next.empty(); ++page) {
    if (page > 1000) throw Error("ANF: list " + collection_id + ": more than 1000 pages; giving up");
    Json j = get(next);
    if (j.contains("value") && j["value"].is_array())
      for (auto& v : j["value"]) out.push_back(std::move(v));
    next = j.contains("nextLink") && j["nextLink"].is_string() ? j["nextLink"].get<std::string>() : "";
  }
  return out;
}

// Follows a 201/202 to a final state: the Azure-AsyncOperation status resource when offered,
// else the Location URL (202 = still running), else the resource's own provisioningState.
void ArmClient::follow(const net::Outcome& first, const std::string& method, const std::string& id,
                       const std::string& what) {
  if (first.response.status == 200 || first.response.status == 204) return;
  std::string async_url = first.response.header("azure-asyncoperation");
  std::string location = first.response.header("location");
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(options_.operation_timeout_s);
  net::Outcome last = first;
  for (int poll = 1;; ++poll) {
    int wait = static_cast<int>(net::parse_retry_after(last.response.header("retry-after"))
                                   .value_or(std::chrono::seconds(options_.default_poll_s))
                                   .count());
    wait = std::min(wait, options_.max_retry_after_s);
    if (Clock::now() + std::chrono::seconds(wait) > deadline)
      throw Error("ANF: " + what + " did not finish within " + std::to_string(options_.operation_timeout_s) +
                  " s; it may still complete in Azure (check with 'lanectl volume describe'); raise "
                  "operationTimeoutSeconds or --timeout to wait longer");
    std::this_thread::sleep_for(std::chrono::seconds(wait));
    std::string state;
    long elapsed = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count();
    if (!async_url.empty()) {
      last = call("GET", async_url, "");
      if (last.response.status != 200) fail("GET (operation status of " + what + ")", id, last);
      Json j = parse_or_null(last.response.body);
      state = j.is_object() ? j.value("status", "") : "";
      if (state == "Failed" || state == "Canceled") {
        auto [code, message] = arm_error_of(j);
        throw ArmError(200, code, message,
                       scrub("ANF: " + what + " " + state + (code.empty() ? "" : ": " + code) +
                             (message.empty() ? "" : ": " + message)));
      }
      if (progress_) *progress_ << "anf: " << what << ": " << (state.empty() ? "InProgress" : state) << " (" << elapsed << " s)\n";
      if (state == "Succeeded") return;
    } else if (!location.empty()) {
      last = call("GET", location, "");
      if (last.response.status == 202) {
        if (progress_) *progress_ << "anf: " << what << ": in progress (" << elapsed << " s)\n";
        continue;
      }
      if (last.response.status != 200 && last.response.status != 204) fail("GET (operation result of " + what + ")", id, last);
      Json j = parse_or_null(last.response.body);
      std::string status = j.is_object() ? j.value("status", "") : "";
      if (status == "Failed" || status == "Canceled") {
        auto [code, message] = arm_error_of(j);
        throw ArmError(200, code, message, scrub("ANF: " + what + " " + status + ": " + code + ": " + message));
      }
      if (progress_) *progress_ << "anf: " << what << ": done (" << elapsed << " s)\n";
      return;
    } else {
      // No operation URL: watch the resource itself (a 201 PUT may do this).
      if (method == "DELETE") return;
      last = call("GET", id, "");
      if (last.response.status != 200) fail("GET", id, last);
      Json j = parse_or_null(last.response.body);
      state = j.is_object() && j.contains("properties") ? j["properties"].value("provisioningState", "") : "";
      if (progress_) *progress_ << "anf: " << what << ": " << state << " (" << elapsed << " s)\n";
      if (state == "Failed" || state == "Canceled") throw Error("ANF: " + what + " ended " + state);
      if (terminal(state)) return;
    }
    (void)poll;
  }
}

Json ArmClient::put(const std::string& id, const Json& body, const std::string& what) {
  const net::Outcome out = call("PUT", id, body.dump());
  const net::Response& r = out.response;
  if (r.status != 200 && r.status != 201 && r.status != 202) fail("PUT", id, out);
  if (r.status == 201 && r.header("azure-asyncoperation").empty() && r.header("location").empty()) {
    Json j = parse_or_null(r.body);
    std::string state = j.is_object() && j.contains("properties") ? j["properties"].value("provisioningState", "") : "";
    if (state != "Succeeded") follow(out, "PUT", id, what);
  } else {
    follow(out, "PUT", id, what);
  }
  Json final_resource = get(id);
  std::string state = final_resource.contains("properties")
                          ? final_resource["properties"].value("provisioningState", "") : "";
  if (state == "Failed") throw Error("ANF: " + what + ": the resource ended in provisioningState Failed");
  return final_resource;
}

void ArmClient::post_action(const std::string& id, const std::string& action, const Json& body,
                            const std::string& what) {
  const std::string path = id + "/" + action;
  const net::Outcome out = call("POST", path, body.dump());
  const net::Response& r = out.response;
  if (r.status != 200 && r.status != 202 && r.status != 204) fail("POST", path, out);
  follow(out, "POST", id, what);
}

void ArmClient::remove(const std::string& id, const std::string& what) {
  const net::Outcome out = call("DELETE", id, "");
  const net::Response& r = out.response;
  if (r.status == 404 || r.status == 204) return;
  if (r.status != 200 && r.status != 202) fail("DELETE", id, out);
  follow(out, "DELETE", id, what);
}

}  // namespace lane::storage::anf
