// Hostile prediction files for `eval` (issue 15, items 6 and 9): deep nesting and numbers out
// of range are usage errors with file:line (100,000 nested arrays crashed eval with SIGSEGV).
#include <catch2/catch.hpp>

#include <fstream>

#include <unistd.h>

#include "common/error.h"
#include "train/eval/tusimple_metric.h"

namespace fs = std::filesystem;

namespace {

std::string error_of(const std::string& second_line) {
  const fs::path path = fs::temp_directory_path() / ("lane-pred-limits-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"raw_file": "clips/a/1/20.jpg", "lanes": [[-2, 10]], "run_time": 5})" << "\n"
                      << second_line << "\n";
  std::string msg;
  try {
    lane::eval::load_predictions(path);
  } catch (const lane::UsageError& e) {
    msg = e.what();
  }
  fs::remove(path);
  CHECK_THAT(msg, Catch::Contains(path.string() + ":2: "));
  return msg;
}

}  // namespace

TEST_CASE("deeply nested prediction JSON is rejected with file:line, not a stack overflow", "[eval][fast]") {
  const std::string deep = std::string(100000, '[') + "1" + std::string(100000, ']');
  CHECK_THAT(error_of(R"({"raw_file": "x.jpg", "run_time": 1, "lanes": [)" + deep + "]}"),
             Catch::Contains("nested more than"));
  CHECK_THAT(error_of(deep), Catch::Contains("nested more than"));
}

TEST_CASE("a prediction number out of range (1e999) is a usage error with file:line", "[eval][fast]") {
  CHECK_THAT(error_of(R"({"raw_file": "x.jpg", "run_time": 1e999, "lanes": []})"), Catch::Contains("out of range"));
}
