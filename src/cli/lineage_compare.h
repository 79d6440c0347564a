#pragma once
// `lanectl lineage RUN --compare OTHER`: two runs' final metrics side by side, and whether they are
// identical to the bit (the point of retraining from a restored snapshot) or where they differ.
// Metrics nest by kind ({"train": {"loss": ...}, "val": {...}}); they are compared as flat
// "train.loss" keys, each value by its exact JSON text (a double as the shortest text that reads
// back to the same bits, so equal text = equal bits). Timings (a key ending in "_s", "_ms" or
// "_seconds", such as train.images_per_s) say how fast a run was, not what it learnt: they are
// shown but not compared.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::cli {

struct MetricRow {
  std::string metric;          // "val.accuracy"
  std::optional<std::string> a, b;  // the value's JSON text; nullopt when that run lacks it
  bool timing = false;              // not compared
  bool equal() const { return a && b && *a == *b; }
};

struct MetricsComparison {
  std::vector<MetricRow> rows;  // sorted by metric
  bool identical() const;       // every compared metric in both runs, with equal values
  std::vector<std::string> differing() const;  // compared metrics only
  std::vector<std::string> timings() const;
};

MetricsComparison compare_final_metrics(const nlohmann::json& a, const nlohmann::json& b);

// The table (METRIC, A, B) and one sentence: "identical (bit-exact)" or the metrics that differ.
void print_comparison(std::ostream& out, const std::string& a_name, const std::string& b_name,
                      const MetricsComparison& c);

// -o json|yaml: {"runs": [a_name, b_name], "identical", "metrics": [{metric, a, b, equal, timing}],
// "differing"}.
nlohmann::json to_json(const std::string& a_name, const std::string& b_name, const MetricsComparison& c);

}  // namespace lane::cli
