// A job's downloadable files (checkpoints, metrics.jsonl, the curves, predictions, evaluation,
// overlays) and its evaluation table, read through the JobFiles role: only the files the
// artifacts list can hold are served (is_artifact_path), opened without following links, and
// streamed from the open file (Reply::file) after the backend lock is released.
#include <algorithm>
#include <functional>

#include "common/run_outputs.h"
#include "dashboard/api.h"
#include "dashboard/job_outputs.h"

namespace lane::dashboard {

namespace {

int kind_rank(const std::string& kind) {
  static const std::vector<std::string> order = {"checkpoint", "metrics", "curves", "predictions", "evaluation",
                                                 "overlay"};
  return static_cast<int>(std::find(order.begin(), order.end(), kind) - order.begin());
}

// The listed files of `dir` whose kind `kind_of` names; false with the reason in `tried`.
bool add_listed(submit::JobFiles& files, const std::string& name, const std::string& project, const std::string& dir,
                const std::function<std::string(const std::string&)>& kind_of, nlohmann::json& items,
                nlohmann::json& tried, bool& truncated) {
  auto list = files.list_dir(name, project, dir, kMaxArtifactsListed);
  if (!list.ok) {
    tried.push_back({{"dir", dir}, {"reason", list.reason}});
    return false;
  }
  truncated = truncated || list.truncated;
  for (const auto& e : list.entries)
    if (const std::string kind = kind_of(e.name); !kind.empty())
      items.push_back({{"name", e.name}, {"kind", kind}, {"dir", dir}, {"path", dir + "/" + e.name},
                       {"size", e.size}, {"modified", e.modified_unix_ms}});
  return true;
}

}  // namespace

std::optional<Reply> Api::artifacts_route(const std::vector<std::string>& parts,
                                          const std::map<std::string, std::string>& query) {
  if (parts.size() < 5 || parts[1] != "jobs") return std::nullopt;
  if (parts.size() == 5 && parts[4] == "artifacts") return artifacts(parts[2], parts[3]);
  if (parts.size() == 5 && parts[4] == "evaluation") return evaluation(parts[2], parts[3]);
  if (parts.size() == 6 && parts[4] == "artifacts" && parts[5] == "file") {
    auto it = query.find("path");
    if (it == query.end() || it->second.empty())
      return error_reply(400, "give the file as ?path=PATH (a path of the artifacts list)");
    return artifact_file(parts[2], parts[3], it->second);
  }
  return std::nullopt;
}

Reply Api::artifacts(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  nlohmann::json items = nlohmann::json::array(), tried = nlohmann::json::array();
  bool truncated = false;
  for (const auto& root : prediction_roots(job->spec, out_dir.value_or(""))) {
    nlohmann::json found = nlohmann::json::array();
    if (!add_listed(roles_.files, name, project, root, artifact_kind, found, tried, truncated)) continue;
    add_listed(roles_.files, name, project, root + "/" + std::string(PredictLayout::kOverlays),
               [](const std::string& n) { return is_overlay_name(n) ? std::string("overlay") : std::string(); },
               found, tried, truncated);
    std::stable_sort(found.begin(), found.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return kind_rank(a["kind"]) < kind_rank(b["kind"]);
    });
    for (auto& item : found) items.push_back(std::move(item));
  }
  if (!out_dir) tried.push_back({{"dir", ""}, {"reason", why}});
  return json_reply({{"available", !items.empty()}, {"items", items}, {"truncated", truncated}, {"tried", tried}});
}

Reply Api::artifact_file(const std::string& project, const std::string& name, const std::string& path) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  std::string why;
  const auto roots = prediction_roots(job->spec, roles_.files.output_dir(name, project, why).value_or(""));
  if (!is_artifact_path(path, roots))
    return error_reply(400, "'" + path + "' is not one of the job's artifacts (GET /api/jobs/" + project + "/" + name +
                                "/artifacts lists them)");
  auto file = roles_.files.open_file(name, project, path, why);
  if (!file) return error_reply(404, "artifact " + path + ": " + why);
  const std::string base = path.substr(path.rfind('/') + 1);
  Reply reply{200, artifact_content_type(base), ""};
  reply.headers = {{"Content-Disposition", "attachment; filename=\"" + base + "\""}};
  reply.file = std::move(file);
  return reply;
}

Reply Api::evaluation(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& root : prediction_roots(job->spec, out_dir.value_or(""))) {
    std::string no_table;
    if (auto view = read_evaluation(roles_.files, name, project, root, no_table)) {
      (*view)["available"] = true;
      (*view)["dir"] = root;
      return json_reply(*view);
    }
    tried.push_back({{"dir", root}, {"reason", no_table}});
  }
  if (!out_dir) tried.push_back({{"dir", ""}, {"reason", why}});
  return json_reply({{"available", false}, {"tried", tried}});
}

}  // namespace lane::dashboard
