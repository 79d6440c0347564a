#pragma once
// TuSimple label files: one JSON object per line, {"lanes", "h_samples", "raw_file"}.
// x = -2 marks "no lane point at this row". Malformed lines are rejected with file:line
// and the reason, or counted and skipped when the caller asks for it.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace lane::data {

inline constexpr int kNoPoint = -2;

struct LaneLabel {
  std::string raw_file;                 // "clips/<date>/<clip>/20.jpg", relative to the data root
  std::vector<int> h_samples;           // rows (pixels) at which lanes are sampled
  std::vector<std::vector<int>> lanes;  // lanes[n][k] = x at h_samples[k], or kNoPoint
};

struct ParseIssue {
  std::string file;
  size_t line = 0;  // 1-based
  std::string reason;
};

struct LabelParseOptions {
  bool skip_bad = false;                 // count and report bad lines instead of failing
  bool offers_skip_bad = false;          // the verb has --skip-bad: a bad line's error suggests it
  std::filesystem::path image_root;      // when set, each raw_file must exist below it
};

struct LabelSet {
  std::vector<LaneLabel> labels;
  std::vector<ParseIssue> skipped;  // only filled when skip_bad is set
};

// Parses one line; throws lane::UsageError with the reason (without file:line).
LaneLabel parse_label_line(const std::string& line);

LabelSet load_label_file(const std::filesystem::path& path, const LabelParseOptions& options = {});
LabelSet load_label_files(const std::vector<std::filesystem::path>& paths,
                          const LabelParseOptions& options = {});

// CULane-style list line (list6_train.txt): "/clips/.../20.jpg /segGT6/.../20.png e1 .. eN".
struct ListEntry {
  std::string image;          // without the leading '/'
  std::string mask;           // without the leading '/'; may be empty
  std::vector<int> existence; // 0/1 per slot; empty for test lists
};

std::vector<ListEntry> load_list_file(const std::filesystem::path& path);

}  // namespace lane::data
