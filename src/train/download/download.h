#pragma once
// `scnn-train download`: fetch the official TuSimple archives (resumable, verified), extract
// them and write the layout the loader expects:
//   OUT/clips/<date>/<clip>/*.jpg, OUT/label_data_*.json, OUT/test_label.json,
//   OUT/lists/list6_train.txt, list6_val.txt, list_test.txt (6 lane slots)
// Working folders: OUT/.partial (downloads in progress), OUT/archives (complete, verified
// archives), OUT/.staging (extraction in progress). OUT/.tusimple-complete is written last;
// without it the folder is not a finished data set.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "train/commands/verb_options.h"

namespace lane::data {

inline constexpr const char* kCompleteMarker = ".tusimple-complete";

// Archive names the command knows, with their path below the base URL.
// train_set.zip -> datasets/1/train_set.zip, test_set.zip -> datasets/1/test_set.zip,
// test_label.json -> truth/1/test_label.json. Other names (or paths with '/') are used as given.
std::string archive_url_path(const std::string& archive);
std::vector<std::string> default_archives();

// sha256sum-style file ("<64 hex>  <name>" per line; '#' comments): name -> lower-case hex.
std::map<std::string, std::string> load_checksums(const std::filesystem::path& path);

struct DownloadReport {
  std::vector<std::string> fetched, reused;  // archives downloaded now / found complete
  size_t label_lines = 0;
  size_t missing_images = 0;                 // label lines whose raw_file is absent
  std::vector<std::filesystem::path> lists;
};

DownloadReport download_tusimple(const DownloadOptions& options);

}  // namespace lane::data
