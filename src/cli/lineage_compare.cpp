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

std::optional<std::string> find(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace

bool MetricsComparison::identical() const { return !rows.empty() && differing().empty(); }

std::vector<std::string> MetricsComparison::differing() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (!r.equal()) out.push_back(r.metric);
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
  for (const auto& [k, unused] : keys) c.rows.push_back({k, find(fa, k), find(fb, k)});
  return c;
}

void print_comparison(std::ostream& out, const std::string& a_name, const std::string& b_name,
                      const MetricsComparison& c) {
  Table table({"METRIC", a_name, b_name});
  for (const auto& r : c.rows) table.add({r.metric, r.a.value_or("-"), r.b.value_or("-")});
  table.print(out);
  if (c.identical()) {
    out << fmt::format("The final metrics of {} and {} are identical (bit-exact): all {} values.\n", a_name, b_name,
                       c.rows.size());
    return;
  }
  const auto diff = c.differing();
  out << fmt::format("The final metrics of {} and {} differ in {} of {} values: {}.\n", a_name, b_name, diff.size(),
                     c.rows.size(), fmt::join(diff, ", "));
}

nlohmann::json to_json(const std::string& a_name, const std::string& b_name, const MetricsComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  auto value = [](const std::optional<std::string>& v) { return v ? nlohmann::json::parse(*v) : nlohmann::json(); };
  for (const auto& r : c.rows)
    rows.push_back({{"metric", r.metric}, {"a", value(r.a)}, {"b", value(r.b)}, {"equal", r.equal()}});
  return {{"runs", {a_name, b_name}}, {"identical", c.identical()}, {"metrics", rows}, {"differing", c.differing()}};
}

}  // namespace lane::cli
