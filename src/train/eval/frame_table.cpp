#include "train/eval/frame_table.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/run_outputs.h"

namespace lane::eval {

std::vector<FrameResult> worst_first(std::vector<FrameResult> frames) {
  std::stable_sort(frames.begin(), frames.end(), [](const FrameResult& a, const FrameResult& b) {
    if (a.score.accuracy != b.score.accuracy) return a.score.accuracy < b.score.accuracy;
    if (a.score.fn != b.score.fn) return a.score.fn > b.score.fn;
    return a.score.fp > b.score.fp;
  });
  return frames;
}

std::string overlay_name(const std::string& raw_file) {
  std::string flat = raw_file;
  std::replace(flat.begin(), flat.end(), '/', '_');
  return std::filesystem::path(flat).replace_extension(".png").string();
}

std::string format_frame_table(const std::vector<FrameResult>& sorted, size_t limit) {
  std::string out = fmt::format("{:>5} {:>8} {:>6} {:>6} {:>3} {:>4}  {}\n", "rank", "accuracy", "FP", "FN", "GT",
                                "pred", "raw_file (overlay)");
  const size_t n = limit > 0 ? std::min(limit, sorted.size()) : sorted.size();
  for (size_t i = 0; i < n; ++i) {
    const auto& f = sorted[i];
    out += fmt::format("{:>5} {:>8.4f} {:>6.3f} {:>6.3f} {:>3} {:>4}  {} ({})\n", i + 1, f.score.accuracy, f.score.fp,
                       f.score.fn, f.gt_lanes, f.pred_lanes, f.raw_file, overlay_name(f.raw_file));
  }
  return out;
}

nlohmann::json evaluation_document(const std::vector<FrameResult>& sorted, const Metrics& aggregate) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& f : sorted)
    rows.push_back({{"raw_file", f.raw_file},
                    {"overlay", overlay_name(f.raw_file)},
                    {"accuracy", f.score.accuracy},
                    {"fp", f.score.fp},
                    {"fn", f.score.fn},
                    {"gt_lanes", f.gt_lanes},
                    {"pred_lanes", f.pred_lanes}});
  return {{"metric", "tusimple"}, {"accuracy", aggregate.accuracy}, {"fp", aggregate.fp},
          {"fn", aggregate.fn},   {"frames", aggregate.frames},     {"rows", std::move(rows)}};
}

std::filesystem::path write_evaluation(const std::filesystem::path& pred, const std::vector<FrameResult>& sorted,
                                       const Metrics& aggregate) {
  const auto path = pred.parent_path() / PredictLayout::kEvaluation;
  write_file_atomic(path, evaluation_document(sorted, aggregate).dump() + "\n");
  return path;
}

}  // namespace lane::eval
