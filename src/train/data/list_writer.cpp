#include "train/data/list_writer.h"

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/data/image_codec.h"
#include "train/data/lane_masks.h"

namespace lane::data {
namespace {

// clips/<date>/<clip>/20.jpg -> seg_label/<date>/<clip>/20.png
std::string seg_label_path(const std::string& raw_file) {
  std::string rel = raw_file;
  const std::string prefix = "clips/";
  if (rel.rfind(prefix, 0) == 0) rel = rel.substr(prefix.size());
  const auto dot = rel.rfind('.');
  if (dot != std::string::npos) rel = rel.substr(0, dot);
  return "seg_label/" + rel + ".png";
}

}  // namespace

std::string list_line(const LaneLabel& label, int lane_slots) {
  std::string line = fmt::format("/{} /{}", label.raw_file, seg_label_path(label.raw_file));
  for (int e : lane_existence(label, lane_slots)) line += e ? " 1" : " 0";
  return line;
}

void write_list_file(const std::filesystem::path& path, const std::vector<LaneLabel>& labels, int lane_slots) {
  check_lane_slots(lane_slots);
  std::string text;
  for (const auto& label : labels) text += list_line(label, lane_slots) + "\n";
  write_file_atomic(path, text);
}

void write_seg_label_pngs(const std::filesystem::path& root, const std::vector<LaneLabel>& labels, int lane_slots) {
  for (const auto& label : labels) {
    const auto path = root / seg_label_path(label.raw_file);
    std::filesystem::create_directories(path.parent_path());
    write_png(path, render_lane_mask(label, lane_slots));
  }
}

}  // namespace lane::data
