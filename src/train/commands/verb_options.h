#pragma once
// What each scnn-train verb takes, with its defaults: the verbs' flags bind to these fields
// (training_verbs.cpp, data_verbs.cpp) and the sub-areas run on them. Declared here, apart from
// the code that runs them, so that the front (front.cpp), which links no libtorch, parses and
// checks the same options.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lane::data {

struct SynthOptions {
  std::filesystem::path out;   // created if missing
  int frames = 200;
  uint64_t seed = 0;
  double val_fraction = 0.2;   // share of frames in the val split
  double test_fraction = 0.0;  // share of frames in the test split
  int jpeg_quality = 90;
  int threads = 0;             // 0: one per core
};

// Where TuSimple publishes the benchmark (the links of tusimple-benchmark issue #3).
inline constexpr const char* kTusimpleBaseUrl = "https://s3.us-east-2.amazonaws.com/benchmark-frontend";

struct DownloadOptions {
  std::filesystem::path out;
  std::string base_url = kTusimpleBaseUrl;
  std::vector<std::string> archives;  // empty: default_archives()
  std::filesystem::path checksums;    // optional sha256sum file
  int retries = 3;
  int retry_delay_ms = 2000;
  bool progress = true;
  bool remove_archives = false;       // delete OUT/archives/* once the set is complete
  int lane_slots = 6;
};

}  // namespace lane::data

namespace lane::train {

struct InspectOptions {
  std::filesystem::path data;
  std::vector<std::string> labels;
  std::filesystem::path overlays;
  int count = 5;
  int lane_slots = 6;
  bool skip_bad = false;
};

struct EvalOptions {
  std::string pred, gt;
  bool per_frame = false;
  size_t top = 0;  // with per_frame: the N worst frames; 0: all
};

struct PredictOptions {
  std::filesystem::path checkpoint;
  std::filesystem::path input;     // one image, or a folder searched recursively for .jpg/.png
  std::filesystem::path out_dir;   // predictions.json + overlays/
  std::filesystem::path raw_root;  // raw_file is relative to this; default: the input folder
  std::filesystem::path labels;    // optional TuSimple label file: overlays show GT and matches
  int threads = 0;                 // 0: OMP_NUM_THREADS or libtorch's default
  std::string device = "auto";     // auto|cpu|cuda|cuda:N, as scnn-train train --device
  std::string device_source = "--device";  // the flag or variable it came from, for errors
  // Post-processing overrides (< 0: the values validation uses, see inference.cpp).
  double prob_threshold = -1, exist_threshold = -1;
  int fill_gaps = -1;  // 0/1 overrides PostprocessOptions::fill_gaps
  double relative_threshold = -1;
  int lane_fit = -1;         // >= 0 overrides PostprocessOptions::lane_fit.degree (0 = off)
  int lane_fit_extend = -1;  // >= 0 overrides PostprocessOptions::lane_fit.extend_rows
  int border_columns = -1;   // >= 0 overrides PostprocessOptions::border_columns
  std::optional<int> max_gap_rows;  // overrides PostprocessOptions::max_gap_rows (-1 = no limit)
  bool tensorboard = true;          // the overlays' TensorBoard event file (--no-tensorboard: none)
};

struct ExportOptions {
  std::filesystem::path checkpoint;
  std::filesystem::path out;  // e.g. scnn_lane.torchscript.pt
};

}  // namespace lane::train
