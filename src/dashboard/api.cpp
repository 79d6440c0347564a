#include "dashboard/api.h"

#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/names.h"
#include "submit/core/status_json.h"
#include "submit/core/workload_json.h"

namespace lane::dashboard {

namespace {

constexpr int64_t kDefaultTail = 200;
constexpr int64_t kMaxTail = 10000;

}  // namespace

std::vector<std::string> split_api_path(const std::string& path) {
  std::vector<std::string> parts;
  const std::string p = path.size() > 1 && path.back() == '/' ? path.substr(0, path.size() - 1) : path;
  size_t start = !p.empty() && p[0] == '/' ? 1 : 0;  // the leading '/'
  if (start >= p.size()) return parts;
  for (size_t slash; (slash = p.find('/', start)) != std::string::npos; start = slash + 1)
    parts.push_back(p.substr(start, slash - start));
  parts.push_back(p.substr(start));
  return parts;
}

namespace {

// 400 when a project or job name of /api/jobs/P/NAME/... is not a DNS-1123 label.
std::optional<Reply> bad_job_name(const std::vector<std::string>& parts) {
  for (size_t i = 2; i < parts.size() && i < 4; ++i)
    if (parts[1] == "jobs" && !is_dns1123_label(parts[i]))
      return error_reply(400, "'" + parts[i] + "' is not a project or job name (lowercase letters, digits and '-')");
  return std::nullopt;
}

}  // namespace

Reply json_reply(const nlohmann::json& doc) { return {200, "application/json", doc.dump()}; }

Reply no_job_reply(const std::string& project, const std::string& name) {
  return error_reply(404, "job '" + name + "' does not exist in project '" + project + "'");
}

Reply error_reply(int status, const std::string& message) {
  return {status, "application/json", nlohmann::json{{"error", message}}.dump()};
}

nlohmann::json Api::jobs_document(const std::optional<std::string>& project) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  nlohmann::json doc = nlohmann::json::array();
  for (const auto& j : roles_.jobs.list_jobs(project)) doc.push_back(submit::job_to_json(j, false));
  return doc;
}

std::vector<std::pair<std::string, std::string>> Api::job_documents() {
  std::vector<submit::JobInfo> jobs;
  {
    std::lock_guard<std::mutex> lock(backend_mutex_);
    jobs = roles_.jobs.list_jobs(std::nullopt);
  }
  std::vector<std::pair<std::string, std::string>> docs;
  docs.reserve(jobs.size());
  for (const auto& j : jobs) docs.emplace_back(j.spec.project + "/" + j.spec.name, submit::job_to_json(j, false).dump());
  return docs;
}

Reply Api::get(const std::string& path, const std::map<std::string, std::string>& query) {
  try {
    auto parts = split_api_path(path);
    if (parts.empty() || parts[0] != "api") return error_reply(404, "no such API path: " + path);
    if (auto bad = bad_job_name(parts)) return *bad;
    if (parts.size() == 2 && parts[1] == "jobs") {
      std::optional<std::string> project;
      if (auto it = query.find("project"); it != query.end() && !it->second.empty()) {
        if (!is_dns1123_label(it->second))
          return error_reply(400, "project '" + it->second + "' is not a project name (lowercase letters, digits and '-')");
        {
          std::lock_guard<std::mutex> lock(backend_mutex_);
          if (!roles_.projects.project_exists(it->second))
            return error_reply(404, "project '" + it->second + "' does not exist; see /api/projects");
        }
        project = it->second;
      }
      return json_reply(jobs_document(project));
    }
    if (parts.size() == 4 && parts[1] == "jobs") return job(parts[2], parts[3]);
    if (parts.size() == 5 && parts[1] == "jobs" && parts[4] == "logs") return logs(parts[2], parts[3], query);
    if (parts.size() == 5 && parts[1] == "jobs" && parts[4] == "metrics") return metrics(parts[2], parts[3]);
    if (parts.size() == 5 && parts[1] == "jobs" && parts[4] == "overlays") return overlays(parts[2], parts[3]);
    if (parts.size() == 6 && parts[1] == "jobs" && parts[4] == "overlays") return overlay_image(parts[2], parts[3], parts[5]);
    if (parts.size() == 2 && parts[1] == "projects") {
      std::lock_guard<std::mutex> lock(backend_mutex_);
      nlohmann::json doc = nlohmann::json::array();
      for (const auto& p : roles_.projects.list_projects()) doc.push_back(submit::project_to_json(p));
      return json_reply(doc);
    }
    if (parts.size() == 2 && parts[1] == "nodes") {
      std::lock_guard<std::mutex> lock(backend_mutex_);
      nlohmann::json doc = nlohmann::json::array();
      for (const auto& n : roles_.cluster.list_nodes()) doc.push_back(submit::node_to_json(n));
      return json_reply(doc);
    }
    if (auto reply = cluster_route(parts)) return *reply;
    if (auto reply = artifacts_route(parts, query)) return *reply;
    return error_reply(404, "no such API path: " + path);
  } catch (const UsageError& e) {
    return error_reply(400, e.what());
  } catch (const std::exception& e) {
    return error_reply(500, e.what());
  }
}

Reply Api::post(const std::string& path, const std::string& body) {
  try {
    auto parts = split_api_path(path);
    if (parts.size() != 5 || parts[0] != "api" || parts[1] != "jobs")
      return error_reply(404, "no such action: " + path + " (POST /api/jobs/PROJECT/NAME/ACTION)");
    if (auto bad = bad_job_name(parts)) return *bad;
    const std::string &project = parts[2], &name = parts[3], &action = parts[4];
    if (action == "resubmit") return resubmit(project, name, body);
    if (action != "suspend" && action != "resume" && action != "delete")
      return error_reply(404, "no action '" + action + "': use suspend, resume, delete or resubmit");
    std::lock_guard<std::mutex> lock(backend_mutex_);
    using submit::SwitchResult;
    SwitchResult result = action == "suspend" ? roles_.jobs.suspend_job(name, project)
                          : action == "resume" ? roles_.jobs.resume_job(name, project)
                          : roles_.jobs.delete_job(name, project) ? SwitchResult::kDone
                                                                  : SwitchResult::kNoJob;
    if (result == SwitchResult::kNoJob) return no_job_reply(project, name);
    return json_reply({{"message", submit::switch_message(name, action, result)}});
  } catch (const UsageError& e) {
    return error_reply(400, e.what());
  } catch (const std::exception& e) {
    return error_reply(500, e.what());
  }
}

Reply Api::job(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  return json_reply(submit::job_to_json(*job, true));
}

Reply Api::logs(const std::string& project, const std::string& name, const std::map<std::string, std::string>& query) {
  submit::LogOptions opts;
  opts.tail = kDefaultTail;
  if (auto it = query.find("tail"); it != query.end()) {
    const std::string& v = it->second;
    bool digits = !v.empty() && v.size() <= 6 && v.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(v) > kMaxTail)
      return error_reply(400, "tail '" + v + "': use a number of lines from 0 to " + std::to_string(kMaxTail));
    opts.tail = std::stoll(v);
  }
  std::lock_guard<std::mutex> lock(backend_mutex_);
  if (!roles_.jobs.describe_job(name, project)) return no_job_reply(project, name);
  std::ostringstream out;
  roles_.jobs.stream_logs(name, project, opts, out);
  return {200, "text/plain; charset=utf-8", out.str()};
}

}  // namespace lane::dashboard
