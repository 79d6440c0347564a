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

namespace lane::data {

// Where TuSimple publishes the benchmark (the links of tusimple-benchmark issue #3).
inline constexpr const char* kTusimpleBaseUrl = "https://s3.us-east-2.amazonaws.com/benchmark-frontend";
inline constexpr const char* kCompleteMarker = ".tusimple-complete";

// Archive names the command knows, with their path below the base URL.
// train_set.zip -> datasets/1/train_set.zip, test_set.zip -> datasets/1/test_set.zip,
// test_label.json -> truth/1/test_label.json. Other names (or paths with '/') are used as given.
std::string archive_url_path(const std::string& archive);
std::vector<std::string> default_archives();

// sha256sum-style file ("<64 hex>  <name>" per line; '#' comments): name -> lower-case hex.
std::map<std::string, std::string> load_checksums(const std::filesystem::path& path);

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

struct DownloadReport {
  std::vector<std::string> fetched, reused;  // archives downloaded now / found complete
  size_t label_lines = 0;
  size_t missing_images = 0;                 // label lines whose raw_file is absent
  std::vector<std::filesystem::path> lists;
};

DownloadReport download_tusimple(const DownloadOptions& options);

}  // namespace lane::data
