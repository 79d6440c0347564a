// `scnn-train inspect`: load a TuSimple set, print per-sample statistics, write label overlays.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/commands/verbs.h"
#include "train/data/frame_transform.h"
#include "train/data/image_codec.h"
#include "train/data/lane_masks.h"
#include "train/data/tusimple_labels.h"

namespace lane::train {
namespace {

// Default label files: every label_data*.json directly under the data folder.
std::vector<std::string> default_label_files(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind("label_data", 0) == 0 && e.path().extension() == ".json")
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const cv::Scalar kSlotColours[6] = {{255, 0, 255}, {0, 255, 255}, {0, 255, 0},
                                    {255, 128, 0}, {0, 128, 255}, {255, 255, 0}};

// Labels are in 1280x720 coordinates, except for down-scaled sets (e.g. the 512x288 sample)
// whose rows all lie inside the smaller frame: those are brought to 1280x720 first.
data::LaneLabel in_frame_coordinates(data::LaneLabel label, cv::Size frame) {
  const int max_row = *std::max_element(label.h_samples.begin(), label.h_samples.end());
  if (frame.height >= data::kFrameHeight || max_row >= frame.height) return label;
  const double sx = double(data::kFrameWidth) / frame.width, sy = double(data::kFrameHeight) / frame.height;
  for (auto& y : label.h_samples) y = int(std::lround(y * sy));
  for (auto& xs : label.lanes)
    for (auto& x : xs)
      if (x >= 0) x = int(std::lround(x * sx));
  return label;
}

cv::Mat overlay(const cv::Mat& frame, const data::LaneLabel& original, int lane_slots) {
  const data::LaneLabel label = in_frame_coordinates(original, frame.size());
  cv::Mat mask = data::render_lane_mask(label, lane_slots, frame.size());
  cv::Mat tint = frame.clone();
  for (int s = 1; s <= lane_slots; ++s) tint.setTo(kSlotColours[s - 1], mask == s);
  cv::Mat out;
  cv::addWeighted(frame, 0.6, tint, 0.4, 0, out);
  const double sx = double(frame.cols) / data::kFrameWidth, sy = double(frame.rows) / data::kFrameHeight;
  for (const auto& xs : label.lanes)
    for (size_t k = 0; k < xs.size(); ++k)
      if (xs[k] >= 0)
        cv::circle(out, cv::Point(int(xs[k] * sx), int(label.h_samples[k] * sy)), 4, cv::Scalar(0, 0, 255), cv::FILLED);
  return out;
}

}  // namespace

void run_inspect_verb(const InspectOptions& o) {
  if (!std::filesystem::is_directory(o.data))
    throw UsageError(fmt::format("--data '{}' is not a folder; pass the root holding clips/ and label_data_*.json",
                                 o.data.string()));
  if (o.count < 0) throw UsageError("--count must be >= 0");
  data::check_lane_slots(o.lane_slots);
  std::vector<std::string> files = o.labels.empty() ? default_label_files(o.data) : o.labels;
  if (files.empty()) throw UsageError(fmt::format("no label_data*.json in '{}'; pass --labels", o.data.string()));
  std::vector<std::filesystem::path> paths;
  for (const auto& f : files) paths.push_back(o.data / f);
  data::LabelParseOptions parse;
  parse.skip_bad = o.skip_bad;
  parse.offers_skip_bad = true;
  const data::LabelSet set = data::load_label_files(paths, parse);
  for (const auto& issue : set.skipped) std::cout << fmt::format("skipped {}:{}: {}\n", issue.file, issue.line, issue.reason);

  // Whole-set statistics.
  std::vector<size_t> existence_hist(size_t(o.lane_slots) + 1, 0);
  size_t lanes = 0, points = 0;
  for (const auto& l : set.labels) {
    lanes += l.lanes.size();
    for (const auto& xs : l.lanes)
      for (int x : xs) points += x >= 0;
    int present = 0;
    for (int e : data::lane_existence(l, o.lane_slots)) present += e;
    ++existence_hist[size_t(present)];
  }
  std::cout << fmt::format("{} label lines from {} file(s), {} lanes, {} labelled points, {} bad lines skipped\n",
                           set.labels.size(), files.size(), lanes, points, set.skipped.size());
  std::cout << "slot lanes present per frame:";
  for (size_t k = 0; k < existence_hist.size(); ++k)
    if (existence_hist[k]) std::cout << fmt::format(" {}:{}", k, existence_hist[k]);
  std::cout << "\n";

  if (!o.overlays.empty()) std::filesystem::create_directories(o.overlays);
  std::cout << fmt::format("{:<48} {:>5} {:>6} {:<14} {:>10} {:>9}\n", "raw_file", "lanes", "points", "existence",
                           "size", "decode ms");
  const size_t n = std::min(set.labels.size(), size_t(o.count));
  for (size_t i = 0; i < n; ++i) {
    const auto& l = set.labels[i];
    size_t pts = 0;
    for (const auto& xs : l.lanes)
      for (int x : xs) pts += x >= 0;
    std::string exist;
    for (int e : data::lane_existence(l, o.lane_slots)) exist += e ? "1" : "0";
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    auto frame = data::decode_jpeg(o.data / l.raw_file, 1, &error);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::string size = frame ? fmt::format("{}x{}", frame->cols, frame->rows) : "unreadable";
    std::cout << fmt::format("{:<48} {:>5} {:>6} {:<14} {:>10} {:>9.1f}\n", l.raw_file, l.lanes.size(), pts, exist,
                             size, ms);
    if (!frame) {
      std::cout << fmt::format("  cannot read '{}': {}\n", (o.data / l.raw_file).string(), error);
      continue;
    }
    if (!o.overlays.empty()) {
      const auto out = o.overlays / fmt::format("overlay_{:03d}.png", i);
      data::write_png(out, overlay(*frame, l, o.lane_slots));
      std::cout << "  overlay: " << out.string() << "\n";
    }
  }
}

}  // namespace lane::train
