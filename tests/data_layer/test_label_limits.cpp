// Hostile label files (issue 15, items 6 and 9): deep nesting, numbers no double holds and
// raw_file values that leave the data root are usage errors with file:line, never a crash
// (100,000 nested arrays overflowed the stack before nesting was bounded).
#include <catch2/catch.hpp>

#include "common/error.h"
#include "common/json_limits.h"
#include "data_test_util.h"
#include "train/data/tusimple_labels.h"

using namespace lane;

namespace {

std::string nested(int levels) { return std::string(levels, '[') + "1" + std::string(levels, ']'); }

const std::string kGoodLine = R"({"lanes": [[-2, 10]], "h_samples": [160, 170], "raw_file": "clips/a/1/20.jpg"})";

// Loads a file whose line 2 is `bad`; returns the error text (fails when there is none).
std::string error_of_line2(const std::string& bad) {
  test::TempDir dir("label-limits");
  const auto path = dir.path() / "label.json";
  test::spit(path, kGoodLine + "\n" + bad + "\n");
  try {
    data::load_label_file(path);
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains(path.string() + ":2: "));
    return msg;
  }
  FAIL("line 2 was accepted: " << bad.substr(0, 80));
  return "";
}

}  // namespace

TEST_CASE("deeply nested label JSON is rejected with file:line, not a stack overflow", "[data_layer][fast]") {
  CHECK_THAT(error_of_line2(R"({"lanes": [)" + nested(100000) + R"(], "h_samples": [1], "raw_file": "a.jpg"})"),
             Catch::Contains("nested more than"));
  CHECK_THAT(error_of_line2(nested(100000)), Catch::Contains("nested more than"));
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  CHECK_THAT(error_of_line2(objects + "1" + std::string(100000, '}')), Catch::Contains("nested more than"));
  // Real labels nest 3 levels; the bound leaves ample room.
  CHECK_NOTHROW(parse_json_bounded(nested(kMaxJsonDepth)));
  CHECK_THROWS_AS(parse_json_bounded(nested(kMaxJsonDepth + 1)), UsageError);
}

TEST_CASE("a label number out of range (1e999) is a usage error with file:line", "[data_layer][fast]") {
  CHECK_THAT(error_of_line2(R"({"lanes": [[1e999, 10]], "h_samples": [160, 170], "raw_file": "clips/a/1/20.jpg"})"),
             Catch::Contains("out of range"));
  CHECK_THAT(error_of_line2(R"({"lanes": [], "h_samples": [-1e999], "raw_file": "clips/a/1/20.jpg"})"),
             Catch::Contains("out of range"));
}

TEST_CASE("raw_file values outside the data root are refused", "[data_layer][fast]") {
  for (const char* bad : {"../../etc/passwd", "/etc/passwd", "clips/../../secret.jpg", "clips/a/..", ".."}) {
    INFO(bad);
    const std::string line = std::string(R"({"lanes": [], "h_samples": [160], "raw_file": ")") + bad + "\"}";
    CHECK_THAT(error_of_line2(line), Catch::Contains("raw_file"));
  }
  // Names that merely contain dots are fine.
  CHECK_NOTHROW(data::parse_label_line(R"({"lanes": [], "h_samples": [160], "raw_file": "clips/a..b/.x/20.jpg"})"));
}
