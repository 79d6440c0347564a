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

// The label drawn as training renders it: its coordinates are the frame's pixels.
cv::Mat overlay(const cv::Mat& frame, const data::LaneLabel& label, int lane_slots) {
  cv::Mat mask = data::render_lane_mask(label, lane_slots, frame.size(), frame.size());
  cv::Mat tint = frame.clone();
  for (int s = 1; s <= lane_slots; ++s) tint.setTo(kSlotColours[s - 1], mask == s);
  cv::Mat out;
  cv::addWeighted(frame, 0.6, tint, 0.4, 0, out);
  for (const auto& xs : label.lanes)
    for (size_t k = 0; k < xs.size(); ++k)
      if (xs[k] >= 0) cv::circle(out, cv::Point(xs[k], label.h_samples[k]), 4, cv::Scalar(0, 0, 255), cv::FILLED);
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
    const std::string outside = data::label_outside_frame(l, frame->size());
    if (!outside.empty())
      std::cout << fmt::format("  the label has {}: it was made for frames of another size (training stops on it)\n",
                               outside);
    if (!o.overlays.empty()) {
      const auto out = o.overlays / fmt::format("overlay_{:03d}.png", i);
      data::write_png(out, overlay(*frame, l, o.lane_slots));
      std::cout << "  overlay: " << out.string() << "\n";
    }
  }
}

}  // namespace lane::train
