// Label files: every real TuSimple label file parses; each malformation is reported as
// file:line with its reason, or counted when skip_bad is set.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "data_test_util.h"
#include "test_paths.h"
#include "train/data/tusimple_labels.h"

using namespace lane;
using lane::data::LabelParseOptions;

TEST_CASE("all real TuSimple label files parse", "[data_layer][fast]") {
  const auto dir = test::tusimple_dir();
  struct Expect { const char* file; size_t lines; size_t rows; };
  const Expect files[] = {
      {"label_data_0313.json", 2858, 48}, {"label_data_0531.json", 358, 56}, {"label_data_0601.json", 410, 56},
      {"test_label.json", 2782, 56},       {"label_data_0601_first6.json", 6, 56},
      {"label_data_0313_sample10_1280x720.json", 10, 48}, {"tusimple_sample_512x288/label_data.json", 10, 48}};
  for (const auto& e : files) {
    INFO(e.file);
    const auto set = data::load_label_file(dir / e.file);
    CHECK(set.labels.size() == e.lines);
    CHECK(set.skipped.empty());
    for (const auto& l : set.labels) {
      REQUIRE(l.h_samples.size() == e.rows);
      REQUIRE(l.raw_file.rfind("clips/", 0) == 0);
      for (const auto& lane : l.lanes) REQUIRE(lane.size() == e.rows);
    }
  }
}

TEST_CASE("label lines whose images exist pass the image check", "[data_layer][fast]") {
  LabelParseOptions o;
  o.image_root = test::tusimple_dir();
  CHECK(data::load_label_file(test::tusimple_dir() / "label_data_0601_first6.json", o).labels.size() == 6);
  o.image_root = test::tusimple_dir() / "tusimple_sample_512x288";
  CHECK(data::load_label_file(test::tusimple_dir() / "tusimple_sample_512x288/label_data.json", o).labels.size() == 10);
}

namespace {

const std::string kGood = R"({"lanes": [[-2, 10, 20], [5, 6, 7]], "h_samples": [700, 705, 710], "raw_file": "clips/a/1/20.jpg"})";

struct Bad { const char* line; const char* reason; };
const Bad kBad[] = {
    {R"({"lanes": [[1, 2, 3]], "h_samples": [1, 2, 3], "raw_file": "clips/a/2/20.jpg")", "not valid JSON"},
    {R"({"lanes": [[1, 2]], "h_samples": [1, 2, 3], "raw_file": "clips/a/3/20.jpg"})", "lane 0 has 2 points but h_samples has 3"},
    {R"({"lanes": [[1, 2.5, 3]], "h_samples": [1, 2, 3], "raw_file": "clips/a/4/20.jpg"})", "'lanes' must hold integers, found 2.5"},
    {R"({"lanes": [[1, 2, 3]], "h_samples": [1, "2", 3], "raw_file": "clips/a/5/20.jpg"})", "'h_samples' must hold integers"},
    {R"({"lanes": [[1, 2, 3]], "h_samples": [1, 2, 3]})", "missing field 'raw_file'"},
    {R"({"lanes": [[1, 99999999999, 3]], "h_samples": [1, 2, 3], "raw_file": "clips/a/6/20.jpg"})", "value 99999999999 is not a pixel coordinate"},
};

}  // namespace

TEST_CASE("each malformed line is rejected with file:line and the reason", "[data_layer][fast]") {
  test::TempDir dir("labels");
  for (size_t i = 0; i < std::size(kBad); ++i) {
    INFO(kBad[i].line);
    const auto path = dir.path() / "label.json";
    test::spit(path, kGood + "\n\n" + kBad[i].line + "\n" + kGood + "\n");  // bad line is line 3
    try {
      data::load_label_file(path);
      FAIL("no error");
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains(path.string() + ":3: "));
      CHECK_THAT(msg, Catch::Contains(kBad[i].reason));
      // Only a verb that has --skip-bad suggests it (eval and predict do not).
      CHECK_THAT(msg, !Catch::Contains("--skip-bad"));
    }
    LabelParseOptions offered;
    offered.offers_skip_bad = true;
    CHECK_THROWS_WITH(data::load_label_file(path, offered), Catch::Contains("(use --skip-bad to skip such lines)"));
  }
}

TEST_CASE("a label whose image is missing is rejected with file:line", "[data_layer][fast]") {
  test::TempDir dir("labels-img");
  std::filesystem::create_directories(dir.path() / "clips/a/1");
  test::spit(dir.path() / "clips/a/1/20.jpg", "x");
  const std::string missing = R"({"lanes": [], "h_samples": [1], "raw_file": "clips/a/9/20.jpg"})";
  test::spit(dir.path() / "label.json", kGood + "\n" + missing + "\n");
  LabelParseOptions o;
  o.image_root = dir.path();
  try {
    data::load_label_file(dir.path() / "label.json", o);
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("label.json:2: image 'clips/a/9/20.jpg' does not exist"));
  }
  o.skip_bad = true;
  const auto set = data::load_label_file(dir.path() / "label.json", o);
  CHECK(set.labels.size() == 1);
  REQUIRE(set.skipped.size() == 1);
  CHECK(set.skipped[0].line == 2);

  // A raw_file that names a directory is no image (it passed the check, then a read failed).
  std::filesystem::create_directories(dir.path() / "clips/a/9/20.jpg");
  o.skip_bad = false;
  CHECK_THROWS_WITH(data::load_label_file(dir.path() / "label.json", o),
                    Catch::Contains("label.json:2: image 'clips/a/9/20.jpg' is not a regular file"));
}

TEST_CASE("skip_bad counts and reports every bad line and keeps the good ones", "[data_layer][fast]") {
  test::TempDir dir("labels-skip");
  std::string text = kGood + "\n";
  for (const auto& b : kBad) text += std::string(b.line) + "\n";
  text += kGood + "\n";
  test::spit(dir.path() / "label.json", text);
  LabelParseOptions o;
  o.skip_bad = true;
  const auto set = data::load_label_file(dir.path() / "label.json", o);
  CHECK(set.labels.size() == 2);
  REQUIRE(set.skipped.size() == std::size(kBad));
  for (size_t i = 0; i < std::size(kBad); ++i) {
    CHECK(set.skipped[i].line == i + 2);
    CHECK_THAT(set.skipped[i].reason, Catch::Contains(kBad[i].reason));
    CHECK(set.skipped[i].file == (dir.path() / "label.json").string());
  }
  // The parsed values are the ones in the file.
  CHECK(set.labels[0].lanes[0] == std::vector<int>{-2, 10, 20});
  CHECK(set.labels[0].h_samples == std::vector<int>{700, 705, 710});
}
