#pragma once
// CULane-style list files for TuSimple ("/clips/.../20.jpg /seg_label/.../20.png e1 .. eN"),
// the format pytorch-auto-drive and the SCNN ports read. Written atomically.
#include <filesystem>
#include <string>
#include <vector>

#include "train/data/tusimple_labels.h"

namespace lane::data {

// "/clips/0601/123/20.jpg /seg_label/0601/123/20.png 0 1 1 1 1 0"
std::string list_line(const LaneLabel& label, int lane_slots);

// One list_line per label, in label order; replaces `path` atomically.
void write_list_file(const std::filesystem::path& path, const std::vector<LaneLabel>& labels, int lane_slots);

// Writes the 720x1280 PNG masks the list lines point to (seg_label/<date>/<clip>/20.png below
// `root`). The loader does not need them (it renders targets itself); other tools may.
void write_seg_label_pngs(const std::filesystem::path& root, const std::vector<LaneLabel>& labels, int lane_slots);

}  // namespace lane::data
