#include "cli/lineage_compare.h"

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "cli/table.h"

namespace lane::cli {

namespace {

// "train.loss" -> its JSON text, for every leaf of `metrics`.
void flatten(const nlohmann::json& metrics, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (!metrics.is_object()) {
    out[prefix] = metrics.dump();
    return;
  }
  for (const auto& [key, value] : metrics.items()) flatten(value, prefix.empty() ? key : prefix + "." + key, out);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Durations and rates (…_s, …_ms, …_seconds) and wall-clock stamps (`time`, …_time: when the
// record was written) differ between runs that compute the same thing.
bool is_timing(const std::string& metric) {
  const std::string leaf = metric.substr(metric.rfind('.') == std::string::npos ? 0 : metric.rfind('.') + 1);
  return ends_with(leaf, "_s") || ends_with(leaf, "_ms") || ends_with(leaf, "_seconds") || leaf == "time" ||
         ends_with(leaf, "_time");
}

std::optional<std::string> find(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace

bool MetricsComparison::identical() const { return rows.size() > timings().size() && differing().empty(); }

std::vector<std::string> MetricsComparison::differing() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (!r.timing && !r.equal()) out.push_back(r.metric);
  return out;
}

std::vector<std::string> MetricsComparison::timings() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.timing) out.push_back(r.metric);
  return out;
}

MetricsComparison compare_final_metrics(const nlohmann::json& a, const nlohmann::json& b) {
  std::map<std::string, std::string> fa, fb;
  if (a.is_object()) flatten(a, "", fa);
  if (b.is_object()) flatten(b, "", fb);
  std::map<std::string, bool> keys;
  for (const auto& [k, v] : fa) keys[k] = true;
  for (const auto& [k, v] : fb) keys[k] = true;
  MetricsComparison c;
  for (const auto& [k, unused] : keys) c.rows.push_back({k, find(fa, k), find(fb, k), is_timing(k)});
  return c;
}

void print_comparison(std::ostream& out, const std::string& a_name, const std::string& b_name,
                      const MetricsComparison& c) {
  Table table({"METRIC", a_name, b_name});
  for (const auto& r : c.rows) table.add({r.metric, r.a.value_or("-"), r.b.value_or("-")});
  table.print(out);
  const auto diff = c.differing(), timings = c.timings();
  const size_t compared = c.rows.size() - timings.size();
  if (c.identical())
    out << fmt::format("The final metrics of {} and {} are identical (bit-exact): all {} values.\n", a_name, b_name,
                       compared);
  else
    out << fmt::format("The final metrics of {} and {} differ in {} of {} values: {}.\n", a_name, b_name, diff.size(),
                       compared, fmt::join(diff, ", "));
  if (!timings.empty()) out << fmt::format("Not compared (timings): {}.\n", fmt::join(timings, ", "));
}

nlohmann::json to_json(const std::string& a_name, const std::string& b_name, const MetricsComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  auto value = [](const std::optional<std::string>& v) { return v ? nlohmann::json::parse(*v) : nlohmann::json(); };
  for (const auto& r : c.rows)
    rows.push_back(
        {{"metric", r.metric}, {"a", value(r.a)}, {"b", value(r.b)}, {"equal", r.equal()}, {"timing", r.timing}});
  return {{"runs", {a_name, b_name}}, {"identical", c.identical()}, {"metrics", rows}, {"differing", c.differing()}};
}

}  // namespace lane::cli
