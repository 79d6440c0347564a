// `scnn-train download` end to end over real HTTP on 127.0.0.1: a synthetic TuSimple zip
// (tiny JPEGs + a label file) built here with libarchive, served by HttpTestServer.
#include <catch2/catch.hpp>

#include <fstream>

#include <archive.h>
#include <archive_entry.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/sha256.h"
#include "http_test_server.h"
#include "train/commands/verbs.h"
#include "train/data/image_codec.h"
#include "train/download/download.h"
#include "train/data/tusimple_labels.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using lane::data::DownloadOptions;

namespace {

const std::vector<std::string> kClips = {"1494453497604532231", "1494453503601902751", "1494453509599288720"};

std::string label_line(const std::string& clip, int shift) {
  nlohmann::json j;
  std::vector<int> h;
  for (int y = 160; y <= 710; y += 10) h.push_back(y);
  std::vector<std::vector<int>> lanes;
  for (int lane = 0; lane < 4; ++lane) {
    std::vector<int> xs;
    for (int y : h) xs.push_back(y < 300 ? -2 : 200 + 300 * lane + shift + (lane - 1.5) * (y - 300));
    lanes.push_back(xs);
  }
  j["lanes"] = lanes;
  j["h_samples"] = h;
  j["raw_file"] = "clips/0601/" + clip + "/20.jpg";
  return j.dump();
}

std::string tiny_jpeg(int seed) {
  cv::Mat img(90, 160, CV_8UC3);
  cv::theRNG().state = static_cast<uint64_t>(seed + 1);
  cv::randu(img, 0, 255);  // noise: does not compress, keeps the archive a few tens of KB
  const std::vector<uint8_t> buf = lane::data::encode_jpeg(img, 95);
  return std::string(buf.begin(), buf.end());
}

// A zip laid out like the official train_set.zip: one wrapping folder with clips/ and labels.
std::string make_zip(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& entries) {
  const fs::path path = dir / "built.zip";
  archive* a = archive_write_new();
  archive_write_set_format_zip(a);
  REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
  for (const auto& [name, data] : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a, data.data(), data.size()) == static_cast<la_ssize_t>(data.size()));
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return lane::read_file(path);
}

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("lane-test-download-" + std::to_string(::getpid()));
  fs::path out = dir / "tusimple";
  lane::test::HttpTestServer server;
  std::string zip, test_label, labels;
  std::vector<std::string> jpegs;

  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> entries;
    for (size_t i = 0; i < kClips.size(); ++i) {
      jpegs.push_back(tiny_jpeg(static_cast<int>(i)));
      entries.emplace_back("train_set/clips/0601/" + kClips[i] + "/20.jpg", jpegs.back());
      labels += label_line(kClips[i], static_cast<int>(i)) + "\n";
    }
    entries.emplace_back("train_set/label_data_0601.json", labels);
    zip = make_zip(dir, entries);
    test_label = label_line(kClips[0], 0) + "\n";
    server.serve("/datasets/1/train_set.zip", zip);
    server.serve("/truth/1/test_label.json", test_label);
  }
  ~Fixture() { fs::remove_all(dir); }

  DownloadOptions options() const {
    DownloadOptions o;
    o.out = out;
    o.base_url = server.base_url();
    o.archives = {"train_set.zip", "test_label.json"};
    o.retries = 0;
    o.retry_delay_ms = 0;
    return o;
  }
  void write_checksums(const std::string& zip_hash) const {
    std::ofstream(dir / "SHA256SUMS") << zip_hash << "  train_set.zip\n"
                                      << lane::sha256_hex(test_label) << " *test_label.json\n";
  }
};

void check_complete_set(const Fixture& f) {
  CHECK(fs::exists(f.out / lane::data::kCompleteMarker));
  CHECK(lane::read_file(f.out / "archives" / "train_set.zip") == f.zip);
  for (size_t i = 0; i < kClips.size(); ++i)
    CHECK(lane::read_file(f.out / "clips" / "0601" / kClips[i] / "20.jpg") == f.jpegs[i]);
  CHECK(lane::read_file(f.out / "label_data_0601.json") == f.labels);
  CHECK(lane::read_file(f.out / "test_label.json") == f.test_label);
  // The lists are the data engineer's list format, one line per label, 6 existence flags.
  const auto train = lane::data::load_list_file(f.out / "lists" / "list6_train.txt");
  REQUIRE(train.size() == kClips.size());
  CHECK(train[0].image == "clips/0601/" + kClips[0] + "/20.jpg");
  CHECK(train[0].existence.size() == 6);
  CHECK(lane::data::load_list_file(f.out / "lists" / "list_test.txt").size() == 1);
  CHECK_FALSE(fs::exists(f.out / "list6_val.txt"));
  CHECK(fs::is_empty(f.out / ".partial"));
  CHECK_FALSE(fs::exists(f.out / ".staging"));
}

}  // namespace

TEST_CASE("full download from a local server: verified, extracted, preprocessed", "[download][fast]") {
  Fixture f;
  f.write_checksums(lane::sha256_hex(f.zip));
  auto o = f.options();
  o.checksums = f.dir / "SHA256SUMS";
  const auto report = lane::data::download_tusimple(o);
  CHECK(report.fetched == std::vector<std::string>{"train_set.zip", "test_label.json"});
  CHECK(report.label_lines == kClips.size() + 1);
  CHECK(report.missing_images == 0);
  check_complete_set(f);
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].path == "/datasets/1/train_set.zip");
  CHECK(reqs[0].headers.count("range") == 0);
  CHECK(reqs[1].path == "/truth/1/test_label.json");

  // A second run reuses everything and makes no request.
  const auto again = lane::data::download_tusimple(o);
  CHECK(again.fetched.empty());
  CHECK(again.reused.size() == 2);
  CHECK(f.server.requests().size() == 2);
  check_complete_set(f);
}

TEST_CASE("an interrupted transfer resumes with a Range request and ends byte-identical", "[download][fast]") {
  Fixture f;
  const size_t cut = f.zip.size() / 3;
  REQUIRE(cut > 1000);
  f.server.cut_next_response_after(cut);
  auto o = f.options();
  // First run: the connection drops, no retries -> error, partial kept, set not marked complete.
  CHECK_THROWS_WITH(lane::data::download_tusimple(o), Contains("run the command again to resume"));
  CHECK(fs::file_size(f.out / ".partial" / "train_set.zip.part") == cut);
  CHECK_FALSE(fs::exists(f.out / lane::data::kCompleteMarker));
  CHECK_FALSE(fs::exists(f.out / "clips"));

  // Second run resumes from the cut.
  lane::data::download_tusimple(o);
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() >= 2);
  CHECK(reqs[0].headers.count("range") == 0);
  REQUIRE(reqs[1].headers.count("range") == 1);
  CHECK(reqs[1].headers.at("range") == "bytes=" + std::to_string(cut) + "-");
  check_complete_set(f);
}

TEST_CASE("within one run, retries resume an interrupted transfer", "[download][fast]") {
  Fixture f;
  f.server.cut_next_response_after(f.zip.size() / 2);
  auto o = f.options();
  o.retries = 2;
  lane::data::download_tusimple(o);
  const auto reqs = f.server.requests();
  REQUIRE(reqs.size() == 3);  // cut zip, resumed zip, test_label.json
  CHECK(reqs[1].headers.at("range") == "bytes=" + std::to_string(f.zip.size() / 2) + "-");
  check_complete_set(f);
}

TEST_CASE("checksum mismatch: clear error, nothing extracted, download discarded", "[download][fast]") {
  Fixture f;
  f.write_checksums(std::string(64, 'a'));
  auto o = f.options();
  o.checksums = f.dir / "SHA256SUMS";
  CHECK_THROWS_WITH(lane::data::download_tusimple(o), Contains("SHA-256 mismatch for train_set.zip") &&
                                                          Contains(std::string(64, 'a')) &&
                                                          Contains(lane::sha256_hex(f.zip)));
  CHECK_FALSE(fs::exists(f.out / "archives" / "train_set.zip"));
  CHECK_FALSE(fs::exists(f.out / ".partial" / "train_set.zip.part"));
  CHECK_FALSE(fs::exists(f.out / "clips"));
  CHECK_FALSE(fs::exists(f.out / "label_data_0601.json"));
  CHECK_FALSE(fs::exists(f.out / lane::data::kCompleteMarker));
}

TEST_CASE("HTTP 404: clear error naming the status and the URL", "[download][fast]") {
  Fixture f;
  auto o = f.options();
  o.archives = {"test_set.zip"};
  CHECK_THROWS_WITH(lane::data::download_tusimple(o),
                    Contains("HTTP 404") && Contains(f.server.base_url() + "/datasets/1/test_set.zip"));
  CHECK_FALSE(fs::exists(f.out / "archives" / "test_set.zip"));
  CHECK_FALSE(fs::exists(f.out / lane::data::kCompleteMarker));
}

TEST_CASE("an archive with a path escaping the folder is refused", "[download][fast]") {
  Fixture f;
  f.server.serve("/evil.zip", make_zip(f.dir, {{"../escape.txt", "x"}}));
  auto o = f.options();
  o.archives = {"evil.zip"};
  CHECK_THROWS_WITH(lane::data::download_tusimple(o), Contains("unsafe path"));
  CHECK_FALSE(fs::exists(f.out.parent_path() / "escape.txt"));
  CHECK_FALSE(fs::exists(f.out / lane::data::kCompleteMarker));
}

TEST_CASE("download verb: bad options are usage errors", "[download][fast]") {
  auto parse = [](std::vector<std::string> args) {
    CLI::App app;
    lane::train::Verbs verbs;
    verbs.download = lane::train::run_download_verb;
    lane::train::add_verbs(app, verbs);
    args.insert(args.begin(), "download");
    std::reverse(args.begin(), args.end());
    app.parse(args);
  };
  CHECK_THROWS_AS(parse({"--base-url", "http://127.0.0.1:1"}), CLI::RequiredError);
  CHECK_THROWS_AS(parse({"--out", "/tmp/x", "--base-url", "ftp://mirror"}), lane::UsageError);
  CHECK_THROWS_AS(parse({"--out", "/tmp/x", "--archives", "../etc/passwd"}), lane::UsageError);
  for (const char* none : {"", ","})  // no archive named: refused, not the full set
    CHECK_THROWS_WITH(parse({"--out", "/tmp/x", "--archives", none}), Contains("--archives: no archive named"));
  const fs::path bad = fs::temp_directory_path() / ("lane-test-sums-" + std::to_string(::getpid()));
  std::ofstream(bad) << "not-a-hash train_set.zip\n";
  CHECK_THROWS_WITH(lane::data::load_checksums(bad), Contains(":1:") && Contains("sha256sum format"));
  fs::remove(bad);
}

TEST_CASE("a failed extraction leaves the set marked incomplete", "[download][fast]") {
  Fixture f;
  auto o = f.options();
  lane::data::download_tusimple(o);
  REQUIRE(fs::exists(f.out / lane::data::kCompleteMarker));
  // Simulate a damaged archive whose extraction has to be redone (e.g. killed mid-way last time).
  fs::remove(f.out / ".extracted" / "train_set.zip");
  lane::write_file_atomic(f.out / "archives" / "train_set.zip", f.zip.substr(0, f.zip.size() / 2));
  CHECK_THROWS_WITH(lane::data::download_tusimple(o), Contains("train_set.zip"));
  CHECK_FALSE(fs::exists(f.out / lane::data::kCompleteMarker));
  CHECK_FALSE(fs::exists(f.out / ".extracted" / "train_set.zip"));
}
