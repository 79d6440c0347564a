#include "train/data/tusimple_labels.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_limits.h"

namespace lane::data {
namespace {

int as_int(const nlohmann::json& v, const char* field) {
  if (!v.is_number_integer() && !v.is_number_unsigned())
    throw UsageError(fmt::format("'{}' must hold integers, found {}", field, v.dump()));
  const int64_t wide = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT32_MAX) ? INT64_MAX : v.get<int64_t>();
  if (wide < -100000 || wide > 100000)  // pixel coordinates; anything larger is a corrupt file
    throw UsageError(fmt::format("'{}' value {} is not a pixel coordinate", field, v.dump()));
  return int(wide);
}

// raw_file is read below the data root: no absolute path, no ".." component.
void require_relative_below_root(const std::string& raw_file) {
  const std::filesystem::path p(raw_file);
  bool bad = p.is_absolute() || raw_file[0] == '/';
  for (const auto& part : p) bad = bad || part == "..";
  if (bad)
    throw UsageError(fmt::format("'raw_file' {} must be a path below the data root such as clips/0601/123/20.jpg "
                                 "(no leading '/', no '..')",
                                 nlohmann::json(raw_file).dump()));
}

}  // namespace

LaneLabel parse_label_line(const std::string& line) {
  const nlohmann::json j = parse_json_bounded(line);
  if (!j.is_object()) throw UsageError("a label line must be a JSON object");
  for (const char* key : {"lanes", "h_samples", "raw_file"})
    if (!j.contains(key)) throw UsageError(fmt::format("missing field '{}'", key));
  LaneLabel out;
  if (!j["raw_file"].is_string() || j["raw_file"].get_ref<const std::string&>().empty())
    throw UsageError("'raw_file' must be a non-empty string such as clips/0601/123/20.jpg");
  out.raw_file = j["raw_file"].get<std::string>();
  require_relative_below_root(out.raw_file);
  if (!j["h_samples"].is_array() || j["h_samples"].empty())
    throw UsageError("'h_samples' must be a non-empty array of row numbers");
  for (const auto& v : j["h_samples"]) out.h_samples.push_back(as_int(v, "h_samples"));
  if (!j["lanes"].is_array()) throw UsageError("'lanes' must be an array of lanes");
  for (size_t n = 0; n < j["lanes"].size(); ++n) {
    const auto& lane = j["lanes"][n];
    if (!lane.is_array()) throw UsageError(fmt::format("lane {} must be an array of x values", n));
    if (lane.size() != out.h_samples.size())
      throw UsageError(fmt::format("lane {} has {} points but h_samples has {}; every lane needs one x per row",
                                   n, lane.size(), out.h_samples.size()));
    std::vector<int> xs;
    xs.reserve(lane.size());
    for (const auto& v : lane) xs.push_back(as_int(v, "lanes"));
    out.lanes.push_back(std::move(xs));
  }
  return out;
}

LabelSet load_label_file(const std::filesystem::path& path, const LabelParseOptions& options) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open label file '{}'", path.string()));
  LabelSet set;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      LaneLabel label = parse_label_line(line);
      if (!options.image_root.empty() && !std::filesystem::is_regular_file(options.image_root / label.raw_file))
        throw UsageError(fmt::format("image '{}' {} under '{}'", label.raw_file,
                                     std::filesystem::exists(options.image_root / label.raw_file)
                                         ? "is not a regular file"
                                         : "does not exist",
                                     options.image_root.string()));
      set.labels.push_back(std::move(label));
    } catch (const UsageError& e) {
      if (!options.skip_bad)
        throw UsageError(fmt::format("{}:{}: {}{}", path.string(), line_no, e.what(),
                                     options.offers_skip_bad ? " (use --skip-bad to skip such lines)" : ""));
      set.skipped.push_back({path.string(), line_no, e.what()});
    }
  }
  return set;
}

LabelSet load_label_files(const std::vector<std::filesystem::path>& paths, const LabelParseOptions& options) {
  LabelSet all;
  for (const auto& p : paths) {
    LabelSet one = load_label_file(p, options);
    std::move(one.labels.begin(), one.labels.end(), std::back_inserter(all.labels));
    std::move(one.skipped.begin(), one.skipped.end(), std::back_inserter(all.skipped));
  }
  return all;
}

std::vector<ListEntry> load_list_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open list file '{}'", path.string()));
  std::vector<ListEntry> out;
  std::string line;
  size_t line_no = 0;
  auto strip = [](std::string s) { return (!s.empty() && s[0] == '/') ? s.substr(1) : s; };
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream ss(line);
    std::string image, mask, flag;
    if (!(ss >> image)) continue;
    ListEntry e;
    e.image = strip(image);
    if (ss >> mask) e.mask = strip(mask);
    while (ss >> flag) {
      if (flag != "0" && flag != "1")
        throw UsageError(fmt::format("{}:{}: existence flag '{}' must be 0 or 1", path.string(), line_no, flag));
      e.existence.push_back(flag == "1");
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace lane::data
