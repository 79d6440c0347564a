#include "train/eval/tusimple_metric.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/json_limits.h"

namespace lane::eval {
namespace {

constexpr double kPixelThreshold = 20.0;  // lane.py pixel_thresh
constexpr double kPointRatio = 0.85;      // lane.py pt_thresh
constexpr double kMaxRunTimeMs = 200.0;   // slower than 5 fps counts as no prediction
constexpr double kMissing = -100.0;       // lane.py maps every negative x to -100

// lane.py get_angle: arctan of the least-squares slope of x over y, fitted on the points
// with x >= 0; 0 when fewer than two such points exist.
double gt_lane_angle(const std::vector<int>& xs, const std::vector<int>& ys) {
  double sum_x = 0, sum_y = 0;
  size_t n = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    if (xs[i] >= 0) sum_x += xs[i], sum_y += ys[i], ++n;
  if (n <= 1) return 0.0;
  const double mean_x = sum_x / static_cast<double>(n), mean_y = sum_y / static_cast<double>(n);
  double sxy = 0, syy = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i] < 0) continue;
    sxy += (ys[i] - mean_y) * (xs[i] - mean_x);
    syy += (ys[i] - mean_y) * (ys[i] - mean_y);
  }
  // All points on one row (never in real labels): sklearn fits slope 0 there.
  const double k = syy > 0 ? sxy / syy : 0.0;
  return std::atan(k);
}

// lane.py line_accuracy: share of ALL rows (not only labelled ones) where |pred - gt| < thresh,
// after mapping negative values to -100 on both sides (so "both missing" counts as a hit).
double line_accuracy(const std::vector<double>& pred, const std::vector<int>& gt, double thresh) {
  size_t hits = 0;
  for (size_t i = 0; i < gt.size(); ++i) {
    const double p = pred[i] >= 0 ? pred[i] : kMissing;
    const double g = gt[i] >= 0 ? static_cast<double>(gt[i]) : kMissing;
    if (std::abs(p - g) < thresh) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(gt.size());
}

}  // namespace

nlohmann::json Metrics::to_official_json() const {
  return nlohmann::json::array({
      {{"name", "Accuracy"}, {"value", accuracy}, {"order", "desc"}},
      {{"name", "FP"}, {"value", fp}, {"order", "asc"}},
      {{"name", "FN"}, {"value", fn}, {"order", "asc"}},
  });
}

FrameMatch match_frame(const std::vector<std::vector<double>>& pred, const std::vector<std::vector<int>>& gt,
                       const std::vector<int>& y_samples, double run_time_ms) {
  for (size_t i = 0; i < pred.size(); ++i)
    if (pred[i].size() != y_samples.size())
      throw UsageError(fmt::format(
          "Format of lanes error: predicted lane {} has {} values but the ground truth has {} h_samples; "
          "output one x (or -2) per h_sample of the GT line",
          i, pred[i].size(), y_samples.size()));
  FrameMatch match;
  match.pred_matched.assign(pred.size(), false);
  if (run_time_ms > kMaxRunTimeMs || pred.size() > gt.size() + 2) {
    match.rejected = true;
    match.score = {0.0, 0.0, 1.0};
    match.gt_best_pred.assign(gt.size(), -1);
    match.gt_accuracy.assign(gt.size(), 0.0);
    match.gt_matched.assign(gt.size(), false);
    return match;
  }

  double fn = 0, matched = 0;
  std::vector<double>& line_accs = match.gt_accuracy;
  for (const auto& gt_lane : gt) {
    if (gt_lane.size() != y_samples.size())
      throw UsageError(fmt::format("ground-truth lane has {} values but h_samples has {}", gt_lane.size(),
                                   y_samples.size()));
    const double thresh = kPixelThreshold / std::cos(gt_lane_angle(gt_lane, y_samples));
    // No one-to-one assignment: every GT lane takes its best predicted lane, even a shared one.
    double best = 0.0;
    int best_index = -1;
    for (size_t p = 0; p < pred.size(); ++p) {
      const double acc = line_accuracy(pred[p], gt_lane, thresh);
      if (acc > best) best = acc, best_index = static_cast<int>(p);
    }
    const bool hit = best >= kPointRatio;
    if (hit) {
      matched += 1;
      match.pred_matched[static_cast<size_t>(best_index)] = true;
    } else {
      fn += 1;
    }
    line_accs.push_back(best);
    match.gt_best_pred.push_back(best_index);
    match.gt_matched.push_back(hit);
  }
  // Can be negative when one predicted lane matched several GT lanes (as in lane.py).
  const double fp = static_cast<double>(pred.size()) - matched;
  // A fifth GT lane (lane change) is a bonus: forgive one miss and drop the worst accuracy.
  if (gt.size() > 4 && fn > 0) fn -= 1;
  double sum = 0;
  for (double a : line_accs) sum += a;
  if (gt.size() > 4) sum -= *std::min_element(line_accs.begin(), line_accs.end());

  const double gt_div = std::max(std::min(4.0, static_cast<double>(gt.size())), 1.0);
  match.score.accuracy = sum / gt_div;
  match.score.fp = pred.empty() ? 0.0 : fp / static_cast<double>(pred.size());
  match.score.fn = fn / gt_div;
  return match;
}

FrameScore score_frame(const std::vector<std::vector<double>>& pred, const std::vector<std::vector<int>>& gt,
                       const std::vector<int>& y_samples, double run_time_ms) {
  return match_frame(pred, gt, y_samples, run_time_ms).score;
}

namespace {

// Shared by evaluate() and evaluate_files(); `where(i)` names prediction i in error messages
// ("prediction line 3" or "pred.json:3"). `unique_frames` gets the number of distinct GT
// raw_files, lane.py's denominator.
std::vector<FrameResult> evaluate_located(const std::vector<PredictionLine>& predictions,
                                          const std::vector<data::LaneLabel>& ground_truth,
                                          const std::function<std::string(size_t)>& where, const std::string& what,
                                          size_t* unique_frames) {
  if (predictions.size() != ground_truth.size())
    throw UsageError(fmt::format(
        "{} has {} lines but the ground truth has {}; submit exactly one line per test frame", what,
        predictions.size(), ground_truth.size()));
  if (ground_truth.empty())
    throw UsageError("the ground truth has no frames: give a label file with one line per test frame");
  // lane.py keys the GT by raw_file (a later duplicate wins) and divides by the number of keys.
  std::unordered_map<std::string, const data::LaneLabel*> by_file;
  for (const auto& label : ground_truth) by_file[label.raw_file] = &label;

  std::vector<FrameResult> frames;
  // A frame predicted twice would be scored twice and another frame not at all (lane.py lets it
  // through): refused.
  std::unordered_map<std::string, size_t> predicted;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const PredictionLine& p = predictions[i];
    if (auto [at, fresh] = predicted.emplace(p.raw_file, i); !fresh)
      throw UsageError(fmt::format("{}: raw_file '{}' is predicted a second time ({} has it too); submit exactly one "
                                   "line per test frame",
                                   where(i), p.raw_file, where(at->second)));
    auto it = by_file.find(p.raw_file);
    if (it == by_file.end())
      throw UsageError(fmt::format(
          "{}: raw_file '{}' does not exist in the ground truth; predict the frames listed there", where(i),
          p.raw_file));
    FrameResult r;
    r.raw_file = p.raw_file;
    r.gt_lanes = it->second->lanes.size();
    r.pred_lanes = p.lanes.size();
    try {
      r.score = score_frame(p.lanes, it->second->lanes, it->second->h_samples, p.run_time_ms);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{} ({}): {}", where(i), p.raw_file, e.what()));
    }
    frames.push_back(std::move(r));
  }
  *unique_frames = by_file.size();
  return frames;
}

Metrics mean_over(const std::vector<FrameResult>& frames, size_t denominator) {
  Metrics m;
  for (const auto& f : frames) {
    m.accuracy += f.score.accuracy;
    m.fp += f.score.fp;
    m.fn += f.score.fn;
  }
  m.frames = denominator;
  if (m.frames > 0) {
    const double n = static_cast<double>(m.frames);
    m.accuracy /= n;
    m.fp /= n;
    m.fn /= n;
  }
  return m;
}

std::function<std::string(size_t)> line_of_prediction() {
  return [](size_t i) { return fmt::format("prediction line {}", i + 1); };
}

}  // namespace

Metrics mean_of(const std::vector<FrameResult>& frames) { return mean_over(frames, frames.size()); }

std::vector<FrameResult> evaluate_frames(const std::vector<PredictionLine>& predictions,
                                         const std::vector<data::LaneLabel>& ground_truth) {
  size_t unique = 0;
  return evaluate_located(predictions, ground_truth, line_of_prediction(), "the prediction", &unique);
}

Metrics evaluate(const std::vector<PredictionLine>& predictions, const std::vector<data::LaneLabel>& ground_truth) {
  size_t unique = 0;
  const auto frames = evaluate_located(predictions, ground_truth, line_of_prediction(), "the prediction", &unique);
  return mean_over(frames, unique);
}

namespace {

PredictionLine parse_prediction(const std::string& text) {
  const nlohmann::json j = parse_json_bounded(text);
  if (!j.is_object()) throw UsageError("a prediction line must be a JSON object");
  for (const char* key : {"raw_file", "lanes", "run_time"})
    if (!j.contains(key))
      throw UsageError(fmt::format("missing field '{}'; every line needs raw_file, lanes and run_time (ms)", key));
  PredictionLine p;
  if (!j["raw_file"].is_string()) throw UsageError("'raw_file' must be a string such as clips/0530/123_0/20.jpg");
  p.raw_file = j["raw_file"].get<std::string>();
  if (!j["run_time"].is_number()) throw UsageError("'run_time' must be a number (milliseconds per frame)");
  p.run_time_ms = j["run_time"].get<double>();
  if (!j["lanes"].is_array()) throw UsageError("'lanes' must be an array of lanes, each an array of x values");
  for (size_t n = 0; n < j["lanes"].size(); ++n) {
    const auto& lane = j["lanes"][n];
    if (!lane.is_array()) throw UsageError(fmt::format("lane {} must be an array of x values", n));
    std::vector<double> xs;
    xs.reserve(lane.size());
    for (const auto& v : lane) {
      if (!v.is_number()) throw UsageError(fmt::format("lane {} holds {}, expected numbers (-2 = no point)", n, v.dump()));
      xs.push_back(v.get<double>());
    }
    p.lanes.push_back(std::move(xs));
  }
  return p;
}

bool is_blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

std::vector<PredictionLine> load_predictions(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open prediction file '{}'", path.string()));
  std::vector<PredictionLine> out;
  std::string line;
  size_t line_no = 0, blank_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (is_blank(line)) {
      if (blank_line == 0) blank_line = line_no;
      continue;
    }
    // Trailing blank lines are harmless; one in the middle would shift line numbers.
    if (blank_line != 0)
      throw UsageError(fmt::format("{}:{}: blank line inside the prediction file; remove it", path.string(), blank_line));
    try {
      out.push_back(parse_prediction(line));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}:{}: {}", path.string(), line_no, e.what()));
    }
  }
  return out;
}

namespace {

std::vector<FrameResult> evaluate_files_located(const std::filesystem::path& pred, const std::filesystem::path& gt,
                                                size_t* unique) {
  const std::vector<PredictionLine> predictions = load_predictions(pred);
  const std::vector<data::LaneLabel> labels = data::load_label_file(gt).labels;
  // Prediction i sits on line i + 1: load_predictions rejects blank lines before the last one.
  return evaluate_located(
      predictions, labels, [&](size_t i) { return fmt::format("{}:{}", pred.string(), i + 1); },
      fmt::format("prediction file '{}'", pred.string()) + fmt::format(" (vs '{}')", gt.string()), unique);
}

}  // namespace

std::vector<FrameResult> evaluate_frames_files(const std::filesystem::path& pred, const std::filesystem::path& gt) {
  size_t unique = 0;
  return evaluate_files_located(pred, gt, &unique);
}

Metrics evaluate_files(const std::filesystem::path& pred, const std::filesystem::path& gt) {
  size_t unique = 0;
  const auto frames = evaluate_files_located(pred, gt, &unique);
  return mean_over(frames, unique);
}

}  // namespace lane::eval
