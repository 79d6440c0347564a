#include "train/download/download.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/sha256.h"
#include "net/redact.h"
#include "train/download/download_extract.h"
#include "train/download/download_http.h"
#include "train/data/list_writer.h"
#include "train/data/tusimple_labels.h"

namespace lane::data {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string local_name(const std::string& archive) { return fs::path(archive).filename().string(); }

void check_archive_name(const std::string& archive) {
  const std::string name = local_name(archive);
  if (name.empty() || name == "." || name == ".." || archive.find("..") != std::string::npos || archive[0] == '/')
    throw UsageError(fmt::format("--archives entry '{}' is not a file name such as train_set.zip", archive));
}

// Step 1: OUT/archives/<name>, downloaded into OUT/.partial and renamed only once complete
// and verified. Returns true when it had to be fetched.
bool ensure_archive(const DownloadOptions& o, const std::string& archive,
                    const std::map<std::string, std::string>& checksums) {
  const std::string name = local_name(archive);
  const fs::path final_path = o.out / "archives" / name;
  if (fs::exists(o.out / ".extracted" / name)) {
    std::cerr << fmt::format("{}: already extracted\n", name);
    return false;
  }
  if (fs::exists(final_path)) {
    std::cerr << fmt::format("{}: already downloaded and verified\n", name);
    return false;
  }
  const fs::path partial = o.out / ".partial" / (name + ".part");
  std::string base = o.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string url = base + "/" + archive_url_path(archive);

  FetchOptions fetch;
  fetch.label = name;
  fetch.retries = o.retries;
  fetch.retry_delay_ms = o.retry_delay_ms;
  fetch.progress = o.progress;
  std::cerr << fmt::format("{}: downloading {}\n", name, net::redact_url(url));
  const FetchResult got = fetch_resumable(url, partial, fetch);

  if (auto it = checksums.find(name); it != checksums.end()) {
    const std::string actual = sha256_file_hex(partial);
    if (actual != it->second) {
      fs::remove(partial);  // a wrong byte cannot be fixed by resuming: start over next time
      throw Error(fmt::format("SHA-256 mismatch for {}: expected {}, got {} ({} bytes from {}); the download was "
                              "deleted, check the mirror and --checksums, then run the command again",
                              name, it->second, actual, got.bytes, net::redact_url(url)));
    }
    std::cerr << fmt::format("{}: SHA-256 verified\n", name);
  }
  fs::create_directories(final_path.parent_path());
  fs::rename(partial, final_path);
  fsync_directory(final_path.parent_path());
  return true;
}

// Step 2: unpack into OUT/.staging/<name>, then move into OUT. OUT/.extracted/<name> records
// a finished merge so that a re-run skips it; an interrupted one is simply redone.
void ensure_extracted(const DownloadOptions& o, const std::string& archive) {
  const std::string name = local_name(archive);
  const fs::path done = o.out / ".extracted" / name;
  if (fs::exists(done)) return;
  const fs::path src = o.out / "archives" / name;
  if (ends_with(name, ".json")) {
    write_file_atomic(o.out / name, read_file(src));
  } else {
    const fs::path staging = o.out / ".staging" / name;
    fs::remove_all(staging);
    std::cerr << fmt::format("{}: extracting\n", name);
    const size_t files = extract_archive(src, staging);
    merge_tree(content_root(staging), o.out);
    fs::remove_all(staging);
    std::cerr << fmt::format("{}: {} files extracted\n", name, files);
  }
  fs::create_directories(done.parent_path());
  write_file_atomic(done, "extracted\n");
}

std::vector<LaneLabel> load_all(const std::vector<fs::path>& files) {
  std::vector<LaneLabel> labels;
  for (const auto& f : files) {
    auto set = load_label_file(f);
    std::move(set.labels.begin(), set.labels.end(), std::back_inserter(labels));
  }
  return labels;
}

// Step 3: the list files of the common split (train = 0313 + 0601, val = 0531, test).
void write_lists(const DownloadOptions& o, DownloadReport& report) {
  std::vector<fs::path> train, val, test;
  for (const auto& entry : fs::directory_iterator(o.out)) {
    const std::string n = entry.path().filename().string();
    if (n == "test_label.json")
      test.push_back(entry.path());
    else if (n == "label_data_0531.json")
      val.push_back(entry.path());
    else if (n.rfind("label_data_", 0) == 0 && ends_with(n, ".json"))
      train.push_back(entry.path());
  }
  std::sort(train.begin(), train.end());
  const std::pair<const char*, const std::vector<fs::path>*> lists[] = {
      {"list6_train.txt", &train}, {"list6_val.txt", &val}, {"list_test.txt", &test}};
  fs::create_directories(o.out / "lists");
  for (const auto& [list_name, files] : lists) {
    if (files->empty()) continue;
    const std::vector<LaneLabel> labels = load_all(*files);
    for (const auto& l : labels)
      if (!fs::exists(o.out / l.raw_file)) ++report.missing_images;
    report.label_lines += labels.size();
    write_list_file(o.out / "lists" / list_name, labels, o.lane_slots);
    report.lists.push_back(o.out / "lists" / list_name);
  }
  if (report.label_lines == 0)
    throw Error(fmt::format("no label files (label_data_*.json, test_label.json) in '{}' after extraction; "
                            "are these TuSimple archives?", o.out.string()));
}

}  // namespace

std::string archive_url_path(const std::string& archive) {
  if (archive.find('/') != std::string::npos) return archive;
  if (archive == "train_set.zip" || archive == "test_set.zip" || archive == "test_baseline.json")
    return "datasets/1/" + archive;
  if (archive == "test_label.json") return "truth/1/" + archive;
  return archive;
}

std::vector<std::string> default_archives() { return {"train_set.zip", "test_set.zip", "test_label.json"}; }

std::map<std::string, std::string> load_checksums(const fs::path& path) {
  std::istringstream in(read_file(path));
  std::map<std::string, std::string> sums;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string hex, name;
    ss >> hex >> name;
    if (!name.empty() && name[0] == '*') name = name.substr(1);  // sha256sum's binary-mode marker
    for (auto& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool is_hex = hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
                          return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
                        });
    if (!is_hex || name.empty())
      throw UsageError(fmt::format("{}:{}: expected '<64 hex digits>  <archive name>' (sha256sum format)",
                                   path.string(), line_no));
    sums[fs::path(name).filename().string()] = hex;
  }
  return sums;
}

DownloadReport download_tusimple(const DownloadOptions& options) {
  DownloadOptions o = options;
  if (o.out.empty()) throw UsageError("--out is required: the folder that will hold the data set");
  if (o.archives.empty()) o.archives = default_archives();
  for (const auto& a : o.archives) check_archive_name(a);
  if (o.base_url.rfind("http://", 0) != 0 && o.base_url.rfind("https://", 0) != 0)
    throw UsageError(fmt::format("--base-url '{}' must start with http:// or https://", o.base_url));
  const auto checksums = o.checksums.empty() ? std::map<std::string, std::string>{} : load_checksums(o.checksums);

  fs::create_directories(o.out);
  // The set is incomplete from here until the marker is written again at the very end.
  fs::remove(o.out / kCompleteMarker);

  DownloadReport report;
  for (const auto& a : o.archives)
    (ensure_archive(o, a, checksums) ? report.fetched : report.reused).push_back(local_name(a));
  for (const auto& a : o.archives) ensure_extracted(o, a);
  write_lists(o, report);
  if (report.missing_images > 0)
    std::cerr << fmt::format("warning: {} label lines name images that are not in '{}'\n", report.missing_images,
                             o.out.string());

  nlohmann::json marker = {{"archives", o.archives},
                           {"label_lines", report.label_lines},
                           {"missing_images", report.missing_images},
                           {"base_url", net::redact_url(o.base_url)}};
  if (o.remove_archives) fs::remove_all(o.out / "archives");
  fs::remove_all(o.out / ".staging");
  write_file_atomic(o.out / kCompleteMarker, marker.dump(2) + "\n");
  return report;
}

}  // namespace lane::data
