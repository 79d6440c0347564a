#include "storage/anf/arm_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <thread>

namespace lane::storage::anf {
namespace {

using Clock = std::chrono::steady_clock;

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    auto b = value.find_first_not_of(" \t");
    auto e = value.find_last_not_of(" \t\r\n");
    (*static_cast<std::map<std::string, std::string>*>(user))[name] =
        b == std::string::npos ? "" : value.substr(b, e - b + 1);
  }
  return size * n;
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

std::string url_escape(const std::string& s) {
  char* e = curl_easy_escape(nullptr, s.data(), static_cast<int>(s.size()));
  std::string out = e ? e : "";
  curl_free(e);
  return out;
}

}  // namespace

std::optional<int> parse_retry_after(const std::string& value) {
  if (value.empty() || value.size() > 9) return std::nullopt;
  for (char c : value)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoi(value);
}

ArmClient::ArmClient(AnfOptions options, std::ostream* progress)
    : options_(std::move(options)), progress_(progress), curl_(curl_easy_init()) {
  if (!curl_) throw Error("ANF: cannot initialise libcurl");
}

ArmClient::~ArmClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

std::string ArmClient::scrub(std::string text) const {
  const std::string& s = options_.client_secret.reveal();
  if (s.empty()) return text;
  for (size_t p; (p = text.find(s)) != std::string::npos;) text.replace(p, s.size(), "****");
  return text;
}

// One HTTP exchange. Transport failures come back as status 0 with curl's message in body.
ArmResponse ArmClient::send_with(const std::string& method, const std::string& url,
                                 const std::string& body, const std::vector<std::string>& extra) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  ArmResponse r;
  curl_slist* headers = nullptr;
  for (const auto& h : extra) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "GET") curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  if (method == "POST" || method == "PUT" || method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(options_.request_timeout_s));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    r.status = 0;
    r.body = curl_easy_strerror(rc);
    return r;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

const std::string& ArmClient::token(bool force_refresh) {
  if (!force_refresh && !token_.empty() && Clock::now() < token_expiry_) return token_;
  const std::string url = options_.authority_url + "/" + url_escape(options_.tenant_id) + "/oauth2/v2.0/token";
  const std::string form = "grant_type=client_credentials&client_id=" + url_escape(options_.client_id) +
                           "&client_secret=" + url_escape(options_.client_secret.reveal()) +
                           "&scope=" + url_escape(options_.scope);
  ArmResponse r;
  for (int attempt = 1;; ++attempt) {
    ++token_requests_;
    r = send_with("POST", url, form, {"Content-Type: application/x-www-form-urlencoded"});
    bool retry = r.status == 0 || r.status == 429 || r.status >= 500;
    if (!retry || attempt >= options_.max_attempts) break;
    int wait = parse_retry_after(r.header("retry-after")).value_or(1 << std::min(attempt - 1, 4));
    std::this_thread::sleep_for(std::chrono::seconds(std::min(wait, options_.max_retry_after_s)));
  }
  if (r.status == 0)
    throw Error(scrub("ANF: cannot reach the token endpoint " + url + ": " + r.body +
                      " (check LANECTL_ANF_AUTHORITY_URL / authorityURL)"));
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

// One logical request: bearer token (refreshed once on 401), retries on 429 / 5xx / transport
// failures with Retry-After or exponential backoff. POST is retried only when the server
// certainly did not act (429, or no connection).
ArmResponse ArmClient::call(const std::string& method, const std::string& id, const std::string& body) {
  const std::string url = url_for(id);
  bool refreshed = false;
  for (int attempt = 1;; ++attempt) {
    std::vector<std::string> h = {"Authorization: Bearer " + token(false), "Accept: application/json"};
    if (!body.empty()) h.push_back("Content-Type: application/json");
    ArmResponse r = send_with(method, url, body, h);
    if (r.status == 401 && !refreshed) {
      refreshed = true;
      token(true);
      --attempt;
      continue;
    }
    bool retryable = r.status == 429 || (method != "POST" && (r.status == 0 || r.status >= 500)) ||
                     (method == "POST" && r.status == 503);
    if (!retryable || attempt >= options_.max_attempts) return r;
    auto after = parse_retry_after(r.header("retry-after"));
    int wait = after.value_or(1 << std::min(attempt - 1, 4));
    if (wait > options_.max_retry_after_s) wait = options_.max_retry_after_s;
    if (progress_)
      *progress_ << "anf: " << method << " " << (r.status ? "HTTP " + std::to_string(r.status) : "connection failed")
                 << ", retrying in " << wait << " s (attempt " << attempt + 1 << " of "
                 << options_.max_attempts << ")\n";
    std::this_thread::sleep_for(std::chrono::seconds(wait));
  }
}

void ArmClient::fail(const std::string& method, const std::string& id, const ArmResponse& r) const {
  if (r.status == 0)
    throw Error(scrub("ANF: " + method + " " + id + ": cannot reach " + options_.arm_url + ": " + r.body +
                      " (check LANECTL_ANF_ARM_URL / armURL)"));
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
  ArmResponse r = call("GET", id, "");
  if (r.status != 200) fail("GET", id, r);
  Json j = parse_or_null(r.body);
  if (j.is_null()) throw Error("ANF: GET " + id + ": the answer is not JSON");
  return j;
}

std::optional<Json> ArmClient::try_get(const std::string& id) {
  ArmResponse r = call("GET", id, "");
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) fail("GET", id, r);
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
void ArmClient::follow(const ArmResponse& first, const std::string& method, const std::string& id,
                       const std::string& what) {
  if (first.status == 200 || first.status == 204) return;
  std::string async_url = first.header("azure-asyncoperation");
  std::string location = first.header("location");
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(options_.operation_timeout_s);
  ArmResponse last = first;
  for (int poll = 1;; ++poll) {
    int wait = parse_retry_after(last.header("retry-after")).value_or(options_.default_poll_s);
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
      if (last.status != 200) fail("GET (operation status of " + what + ")", id, last);
      Json j = parse_or_null(last.body);
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
      if (last.status == 202) {
        if (progress_) *progress_ << "anf: " << what << ": in progress (" << elapsed << " s)\n";
        continue;
      }
      if (last.status != 200 && last.status != 204) fail("GET (operation result of " + what + ")", id, last);
      Json j = parse_or_null(last.body);
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
      if (last.status != 200) fail("GET", id, last);
      Json j = parse_or_null(last.body);
      state = j.is_object() && j.contains("properties") ? j["properties"].value("provisioningState", "") : "";
      if (progress_) *progress_ << "anf: " << what << ": " << state << " (" << elapsed << " s)\n";
      if (state == "Failed" || state == "Canceled") throw Error("ANF: " + what + " ended " + state);
      if (terminal(state)) return;
    }
    (void)poll;
  }
}

Json ArmClient::put(const std::string& id, const Json& body, const std::string& what) {
  ArmResponse r = call("PUT", id, body.dump());
  if (r.status != 200 && r.status != 201 && r.status != 202) fail("PUT", id, r);
  if (r.status == 201 && r.header("azure-asyncoperation").empty() && r.header("location").empty()) {
    Json j = parse_or_null(r.body);
    std::string state = j.is_object() && j.contains("properties") ? j["properties"].value("provisioningState", "") : "";
    if (state != "Succeeded") follow(r, "PUT", id, what);
  } else {
    follow(r, "PUT", id, what);
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
  ArmResponse r = call("POST", path, body.dump());
  if (r.status != 200 && r.status != 202 && r.status != 204) fail("POST", path, r);
  follow(r, "POST", id, what);
}

void ArmClient::remove(const std::string& id, const std::string& what) {
  ArmResponse r = call("DELETE", id, "");
  if (r.status == 404 || r.status == 204) return;
  if (r.status != 200 && r.status != 202) fail("DELETE", id, r);
  follow(r, "DELETE", id, what);
}

}  // namespace lane::storage::anf
