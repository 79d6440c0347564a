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

namespace {

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() > end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

bool is_overlay_name(std::string_view name) {
  if (!is_artifact_name(name)) return false;
  const std::string lower = lowered(name);
  return ends_with(lower, ".png") || ends_with(lower, ".jpg") || ends_with(lower, ".jpeg");
}

std::string image_type(std::string_view data) {
  if (data.size() >= 8 && data.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
  if (data.size() >= 3 && data.substr(0, 3) == std::string_view("\xff\xd8\xff", 3)) return "image/jpeg";
  return "";
}

bool is_artifact_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string artifact_kind(std::string_view name) {
  if (!is_artifact_name(name)) return "";
  if (name == RunLayout::kMetrics) return "metrics";
  if (name == RunLayout::kCurves) return "curves";
  if (name == PredictLayout::kPredictions) return "predictions";
  if (name == PredictLayout::kEvaluation) return "evaluation";
  if (ends_with(name, ".pt")) return "checkpoint";
  return "";
}

bool is_artifact_path(const std::string& path, const std::vector<std::string>& roots) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || !submit::is_clean_absolute_path(path)) return false;
  const std::string dir = path.substr(0, slash), name = path.substr(slash + 1);
  const std::string overlays = "/" + std::string(PredictLayout::kOverlays);
  for (const auto& root : roots) {
    if (dir == root && !artifact_kind(name).empty()) return true;
    if (dir == root + overlays && is_overlay_name(name)) return true;
  }
  return false;
}

std::string artifact_content_type(std::string_view name) {
  const std::string n = lowered(name);
  if (ends_with(n, ".jsonl")) return "application/x-ndjson";
  if (ends_with(n, ".json")) return "application/json";
  if (ends_with(n, ".png")) return "image/png";
  if (ends_with(n, ".jpg") || ends_with(n, ".jpeg")) return "image/jpeg";
  return "application/octet-stream";
}

namespace {

double number_at(const nlohmann::json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) throw std::runtime_error(where + ": \"" + key + "\" is not a number");
  return it->get<double>();
}

nlohmann::json row_view(const nlohmann::json& row, size_t i) {
  const std::string where = "evaluation row " + std::to_string(i + 1);
  if (!row.is_object() || !row.contains("raw_file") || !row["raw_file"].is_string())
    throw std::runtime_error(where + " is not an object with a \"raw_file\" string");
  const auto overlay = row.value("overlay", nlohmann::json());
  const bool named = overlay.is_string() && is_overlay_name(overlay.get<std::string>());
  return {{"raw_file", row["raw_file"]},          {"overlay", named ? overlay : nlohmann::json()},
          {"accuracy", number_at(row, "accuracy", where)}, {"fp", number_at(row, "fp", where)},
          {"fn", number_at(row, "fn", where)},      {"gt_lanes", row.value("gt_lanes", nlohmann::json())},
          {"pred_lanes", row.value("pred_lanes", nlohmann::json())}};
}

}  // namespace

nlohmann::json evaluation_view(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array())
    throw std::runtime_error("not an evaluation: an object with \"rows\" is expected");
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < doc["rows"].size(); ++i) rows.push_back(row_view(doc["rows"][i], i));
  std::vector<nlohmann::json> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    if (a["accuracy"] != b["accuracy"]) return a["accuracy"].get<double>() < b["accuracy"].get<double>();
    if (a["fn"] != b["fn"]) return a["fn"].get<double>() > b["fn"].get<double>();
    return a["fp"].get<double>() > b["fp"].get<double>();
  });
  const std::string where = "evaluation";
  return {{"accuracy", number_at(doc, "accuracy", where)}, {"fp", number_at(doc, "fp", where)},
          {"fn", number_at(doc, "fn", where)},             {"frames", doc.value("frames", nlohmann::json())},
          {"rows", sorted}};
}

std::vector<std::string> worst_overlays(const nlohmann::json& view) {
  std::vector<std::string> names;
  for (const auto& row : view["rows"])
    if (row["overlay"].is_string()) names.push_back(row["overlay"].get<std::string>());
  return names;
}

std::optional<nlohmann::json> read_evaluation(submit::JobFiles& files, const std::string& name,
                                              const std::string& project, const std::string& root, std::string& why) {
  const std::string path = root + "/" + std::string(PredictLayout::kEvaluation);
  auto read = files.read_file(name, project, path, kMaxEvaluationBytes + 1, false);
  if (!read.ok) {
    why = read.reason;
    return std::nullopt;
  }
  if (read.size > kMaxEvaluationBytes) {
    why = path + " is larger than " + std::to_string(kMaxEvaluationBytes) + " bytes";
    return std::nullopt;
  }
  try {
    nlohmann::json view = evaluation_view(nlohmann::json::parse(read.data));
    view["path"] = path;
    return view;
  } catch (const std::exception& e) {
    why = path + ": " + e.what();
    return std::nullopt;
  }
}

// ---- the API methods (declared in api.h) ----

namespace {

// The entries named in `worst` (overlay names, worst frame first) first, in that order; the others
// after them as they were.
void worst_first(std::vector<submit::JobFileEntry>& entries, const std::vector<std::string>& worst) {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < worst.size(); ++i) rank.emplace(worst[i], i);
  auto rank_of = [&rank](const submit::JobFileEntry& e) {
    auto it = rank.find(e.name);
    return it == rank.end() ? rank.size() : it->second;
  };
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const submit::JobFileEntry& a, const submit::JobFileEntry& b) { return rank_of(a) < rank_of(b); });
}

}  // namespace

Reply Api::metrics(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  if (!roles_.jobs.describe_job(name, project)) return no_job_reply(project, name);
  nlohmann::json doc = {{"available", false}};
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  const std::string dir = out_dir ? clean_dir(*out_dir) : "";
  if (dir.empty()) {
    doc["reason"] = out_dir ? "OUTPUT_DIR '" + *out_dir + "' is not an absolute path" : why;
    return json_reply(doc);
  }
  const std::string path = RunLayout{dir}.metrics().string();
  doc["path"] = path;
  doc["run_dir"] = dir;  // also holds scnn-train's TensorBoard event files (the job page shows the command)
  auto read = roles_.files.read_file(name, project, path, kMaxMetricsBytes, /*tail=*/true);
  if (!read.ok) {
    doc["reason"] = read.reason;
    return json_reply(doc);
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
  return json_reply(doc);
}

Reply Api::overlays(const std::string& project, const std::string& name) {
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  std::string why;
  const auto out_dir = roles_.files.output_dir(name, project, why);
  nlohmann::json doc = {{"available", false}, {"images", nlohmann::json::array()}};
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& root : prediction_roots(job->spec, out_dir.value_or(""))) {
    const std::string dir = root + "/overlays";
    auto list = roles_.files.list_dir(name, project, dir, kMaxArtifactsListed);
    if (!list.ok) {
      tried.push_back({{"dir", dir}, {"reason", list.reason}});
      continue;
    }
    std::string no_evaluation;
    const auto evaluation = read_evaluation(roles_.files, name, project, root, no_evaluation);
    if (evaluation) worst_first(list.entries, worst_overlays(*evaluation));
    doc["order"] = evaluation ? "worst first (" + evaluation->value("path", "") + ")" : "newest first";
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
  return json_reply(doc);
}

Reply Api::overlay_image(const std::string& project, const std::string& name, const std::string& file) {
  if (!is_overlay_name(file))
    return error_reply(400, "'" + file + "' is not an overlay name (letters, digits, '.', '_', '-'; .png, .jpg or .jpeg)");
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
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
