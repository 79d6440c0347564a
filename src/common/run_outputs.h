#pragma once
// What a training run leaves in its output directory (OUTPUT_DIR), shared by the trainer that
// writes it (rank 0 of scnn-train) and the programs that read it: the end-of-training snapshot's
// lineage (final metrics) and the dashboard's job page (curves).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane {

// The file names of a run directory.
struct RunLayout {
  static constexpr std::string_view kMetrics = "metrics.jsonl";
  static constexpr std::string_view kLatestCheckpoint = "checkpoint_latest.pt";
  static constexpr std::string_view kBestCheckpoint = "checkpoint_best.pt";  // only with validation
  static constexpr std::string_view kCurves = "training_curves.png";

  std::filesystem::path dir;

  std::filesystem::path metrics() const { return dir / kMetrics; }
  std::filesystem::path latest_checkpoint() const { return dir / kLatestCheckpoint; }
  std::filesystem::path best_checkpoint() const { return dir / kBestCheckpoint; }
  std::filesystem::path curves() const { return dir / kCurves; }
};

// What `scnn-train predict --out DIR` and `scnn-train eval` leave in DIR: the submission lines,
// one overlay per frame, and the evaluation (aggregate and per-frame scores, worst first;
// docs/training.md#predict-evaluate-pictures).
struct PredictLayout {
  static constexpr std::string_view kPredictions = "predictions.json";
  static constexpr std::string_view kOverlays = "overlays";
  static constexpr std::string_view kEvaluation = "evaluation.json";
};

// One line of metrics.jsonl: a JSON object with a "kind" and, from scnn-train, a "step" and
// numbers (train: epoch, loss, seg_loss, exist_loss, lr, images_per_s; val: epoch, accuracy, fp,
// fn, frames; docs/training.md#outputs-and-resuming).
struct MetricsRecord {
  static constexpr std::string_view kTrain = "train";
  static constexpr std::string_view kVal = "val";
  static constexpr std::string_view kUnnamed = "metrics";  // the kind of a line without one

  std::string kind{kUnnamed};
  nlohmann::json fields = nlohmann::json::object();  // every key but "kind"

  // The line as written (compact JSON, no newline). A NaN or infinite number is refused
  // (lane::Error naming the key): JSON cannot hold it and nlohmann would write null.
  std::string to_line() const;
  // The record of a line, or nullopt when it is not a JSON object (a torn last line of a killed
  // run, the partial first line of a tail read). A kind that is missing, empty or not a string
  // reads as kUnnamed.
  static std::optional<MetricsRecord> parse(std::string_view line);

  std::optional<int64_t> step() const;
  // The value of `key` when it is a number.
  std::optional<double> number(const std::string& key) const;
};

// The records of a metrics.jsonl text in file order; lines that are not records are skipped.
std::vector<MetricsRecord> parse_metrics_records(std::string_view jsonl);

}  // namespace lane
