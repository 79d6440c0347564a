#include "common/run_outputs.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

namespace lane {

std::string MetricsRecord::to_line() const {
  for (const auto& [key, value] : fields.items())  // JSON has no NaN: nlohmann would write null
    if (value.is_number_float() && !std::isfinite(value.get<double>()))
      throw Error(fmt::format("metrics record '{}': '{}' is {}, which JSON cannot hold; it is not written", kind,
                              key, value.get<double>()));
  nlohmann::json j = fields;
  j["kind"] = kind;
  return j.dump();
}

std::optional<MetricsRecord> MetricsRecord::parse(std::string_view line) {
  if (line.empty() || line.front() != '{') return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  MetricsRecord r;
  if (auto k = j.find("kind"); k != j.end()) {
    if (k->is_string() && !k->get<std::string>().empty()) r.kind = k->get<std::string>();
    j.erase(k);
  }
  r.fields = std::move(j);
  return r;
}

std::optional<int64_t> MetricsRecord::step() const {
  auto it = fields.find("step");
  if (it == fields.end() || !it->is_number()) return std::nullopt;
  return it->get<int64_t>();
}

std::optional<double> MetricsRecord::number(const std::string& key) const {
  auto it = fields.find(key);
  if (it == fields.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<MetricsRecord> parse_metrics_records(std::string_view jsonl) {
  std::vector<MetricsRecord> out;
  size_t start = 0;
  while (start < jsonl.size()) {
    size_t end = jsonl.find('\n', start);
    if (end == std::string_view::npos) end = jsonl.size();
    if (auto r = MetricsRecord::parse(jsonl.substr(start, end - start))) out.push_back(std::move(*r));
    start = end + 1;
  }
  return out;
}

}  // namespace lane
