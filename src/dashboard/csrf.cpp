#include "dashboard/csrf.h"

#include "dashboard/token.h"

namespace lane::dashboard {

namespace {

bool is_origin_of(const std::string& origin, const std::string& host) {
  return !host.empty() && (origin == "http://" + host || origin == "https://" + host);
}

}  // namespace

std::string cross_site_problem(const std::string& host, const std::string& origin, const std::string& sec_fetch_site,
                               const std::string& referer) {
  if (!sec_fetch_site.empty() && sec_fetch_site != "same-origin")
    return "Sec-Fetch-Site is '" + sec_fetch_site + "': actions are taken only from the dashboard's own pages";
  if (!origin.empty())
    return is_origin_of(origin, host) ? "" : "Origin '" + origin + "' is not this dashboard (" + host + ")";
  if (!sec_fetch_site.empty()) return "";
  if (!referer.empty()) {
    auto slash = referer.find('/', referer.find("://") == std::string::npos ? 0 : referer.find("://") + 3);
    return is_origin_of(referer.substr(0, slash), host) ? "" : "Referer is not a page of this dashboard (" + host + ")";
  }
  return "no Origin header: send Origin: http://" + host + " (a browser does)";
}

Sessions::Session Sessions::open(const std::vector<std::string>& ids, bool& created) {
  std::lock_guard<std::mutex> lock(mutex_);
  created = false;
  for (const auto& id : ids)
    for (const auto& s : sessions_)
      if (tokens_equal(s.id, id)) return s;
  created = true;
  if (sessions_.size() >= capacity_) sessions_.erase(sessions_.begin());
  sessions_.push_back({generate_token(), generate_token(), next_number_++});
  return sessions_.back();
}

std::optional<uint64_t> Sessions::check(const std::vector<std::string>& ids, const std::string& csrf) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<uint64_t> found;
  for (const auto& id : ids)
    for (const auto& s : sessions_) {
      bool same_id = tokens_equal(s.id, id), same_csrf = tokens_equal(s.csrf, csrf);
      if (same_id && same_csrf) found = s.number;
    }
  return found;
}

}  // namespace lane::dashboard
