#include "dashboard/job_outputs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/run_outputs.h"
#include "dashboard/api.h"
#include "submit/core/job_files.h"

namespace lane::dashboard {

nlohmann::json metrics_columns(std::string_view jsonl, size_t max_points) {
  std::map<std::string, std::vector<nlohmann::json>> records;  // kind -> records in file order
  for (auto& r : parse_metrics_records(jsonl)) records[r.kind].push_back(std::move(r.fields));
  nlohmann::json out = nlohmann::json::object();
  for (auto& [kind, recs] : records) {
    std::vector<const nlohmann::json*> kept;
    const size_t n = recs.size();
    const size_t every = max_points == 0 || n <= max_points ? 1 : (n + max_points - 1) / max_points;
    for (size_t i = 0; i < n; i += every) kept.push_back(&recs[i]);
    if (kept.back() != &recs.back()) kept.push_back(&recs.back());
    std::vector<std::string> keys;  // numeric keys in first-seen order
    for (const auto* r : kept)
      for (const auto& [k, v] : r->items())
        if (v.is_number() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    nlohmann::json cols = nlohmann::json::object();
    for (const auto& k : keys) {
      nlohmann::json col = nlohmann::json::array();
      for (const auto* r : kept) {
        auto it = r->find(k);
        col.push_back(it != r->end() && it->is_number() ? *it : nlohmann::json(nullptr));
      }
      cols[k] = std::move(col);
    }
    out[kind] = std::move(cols);
  }
  return out;
}

std::string clean_dir(const std::string& path) {
  if (path.empty() || path[0] != '/') return "";
  std::string s = std::filesystem::path(path).lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return submit::is_clean_absolute_path(s) ? s : "";
}

namespace {

std::string unquoted(std::string s) {
  while (!s.empty() && (s.back() == ';' || s.back() == '&' || s.back() == '|')) s.pop_back();
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

std::vector<std::string> prediction_roots(const submit::JobSpec& spec, const std::string& output_dir) {
  std::vector<std::string> roots;
  auto add = [&roots](const std::string& dir) {
    const std::string c = clean_dir(dir);
    if (!c.empty() && std::find(roots.begin(), roots.end(), c) == roots.end()) roots.push_back(c);
  };
  add(output_dir);
  std::vector<std::string> words;
  auto split_into = [&words](const std::string& text) {
    std::istringstream in(text);
    std::string w;
    while (in >> w) words.push_back(w);
  };
  for (const auto& w : spec.command) split_into(w);
  for (const auto& w : spec.args) split_into(w);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--out" && i + 1 < words.size()) add(unquoted(words[i + 1]));
    else if (words[i].rfind("--out=", 0) == 0) add(unquoted(words[i].substr(6)));
  }
  return roots;
}

bool is_overlay_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  auto ends = [&lower](std::string_view ext) {
    return lower.size() > ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0;
  };
  return ends(".png") || ends(".jpg") || ends(".jpeg");
}

std::string image_type(std::string_view data) {
  if (data.size() >= 8 && data.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
  if (data.size() >= 3 && data.substr(0, 3) == std::string_view("\xff\xd8\xff", 3)) return "image/jpeg";
  return "";
}

// ---- the API methods (declared in api.h) ----

namespace {

Reply json_ok(const nlohmann::json& doc) { return {200, "application/json", doc.dump()}; }

Reply no_job(const std::string& project, const std::string& name) {
  return error_reply(404, "job '" + name + "' does not exist in project '" + project + "'");
}

}  // namespace

Reply Api::metrics(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  if (!roles_.jobs.describe_job(name, project)) return no_job(project, name);
  nlohmann::json doc = {{"available", false}};
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  const std::string dir = out_dir ? clean_dir(*out_dir) : "";
  if (dir.empty()) {
    doc["reason"] = out_dir ? "OUTPUT_DIR '" + *out_dir + "' is not an absolute path" : why;
    return json_ok(doc);
  }
  const std::string path = RunLayout{dir}.metrics().string();
  doc["path"] = path;
  auto read = roles_.files.read_file(name, project, path, kMaxMetricsBytes, /*tail=*/true);
  if (!read.ok) {
    doc["reason"] = read.reason;
    return json_ok(doc);
  }
  std::string_view text = read.data;
  if (read.truncated()) {  // read from the middle of a line: drop that partial line
    const size_t newline = text.find('\n');
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
  }
  doc["available"] = true;
  doc["size"] = read.size;
  doc["modified"] = read.modified_unix_ms;
  doc["truncated"] = read.truncated();
  doc["kinds"] = metrics_columns(text);
  return json_ok(doc);
}

Reply Api::overlays(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job(project, name);
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  nlohmann::json doc = {{"available", false}, {"images", nlohmann::json::array()}};
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& root : prediction_roots(job->spec, out_dir.value_or(""))) {
    const std::string dir = root + "/overlays";
    auto list = roles_.files.list_dir(name, project, dir, 1000);
    if (!list.ok) {
      tried.push_back({{"dir", dir}, {"reason", list.reason}});
      continue;
    }
    nlohmann::json images = nlohmann::json::array();
    for (const auto& e : list.entries)
      if (is_overlay_name(e.name) && images.size() < kMaxOverlays)
        images.push_back({{"name", e.name}, {"size", e.size}, {"modified", e.modified_unix_ms}});
    if (images.empty()) {
      tried.push_back({{"dir", dir}, {"reason", dir + " holds no PNG or JPEG images"}});
      continue;
    }
    doc["available"] = true;
    doc["dir"] = dir;
    doc["images"] = images;
    doc["truncated"] = list.truncated || images.size() == kMaxOverlays;
    break;
  }
  if (tried.empty() && doc["available"] == false)
    tried.push_back({{"dir", ""}, {"reason", why + ", and its command has no --out DIR"}});
  doc["tried"] = tried;
  return json_ok(doc);
}

Reply Api::overlay_image(const std::string& project, const std::string& name, const std::string& file) {
  if (!is_overlay_name(file))
    return error_reply(400, "'" + file + "' is not an overlay name (letters, digits, '.', '_', '-'; .png, .jpg or .jpeg)");
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job(project, name);
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  std::string last_reason = "the job has no overlays directory";
  for (const auto& root : prediction_roots(job->spec, out_dir.value_or(""))) {
    auto read = roles_.files.read_file(name, project, root + "/overlays/" + file, kMaxOverlayBytes + 1, false);
    if (!read.ok) {
      last_reason = read.reason;
      continue;
    }
    if (read.size > kMaxOverlayBytes)
      return error_reply(413, file + " is " + std::to_string(read.size) + " bytes; the dashboard serves overlays of at most " +
                                  std::to_string(kMaxOverlayBytes) + " bytes");
    const std::string type = image_type(read.data);
    if (type.empty()) return error_reply(415, file + " is not a PNG or JPEG image");
    return {200, type, std::move(read.data)};
  }
  return error_reply(404, "overlay " + file + ": " + last_reason);
}

}  // namespace lane::dashboard
