// `scnn-train eval` as a verb: parsed in-process (the binary needs libtorch, the verb does not).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "test_paths.h"
#include "train/commands/verbs.h"

namespace fs = std::filesystem;

namespace {

// Runs `scnn-train eval ARGS...` and returns what it printed on stdout.
std::string run_eval(std::vector<std::string> args) {
  CLI::App app;
  lane::train::Verbs verbs;
  verbs.eval = lane::train::run_eval_verb;
  lane::train::add_verbs(app, verbs);
  args.insert(args.begin(), "eval");
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  std::ostringstream captured;
  auto* old = std::cout.rdbuf(captured.rdbuf());
  try {
    app.parse(args);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return captured.str();
}

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("eval verb prints the official JSON for the first 6 lines of label_data_0601", "[eval][fast]") {
  const fs::path dir = fs::temp_directory_path() / ("lane-test-cmd-eval-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path gt = lane::test::tusimple_dir() / "label_data_0601_first6.json";
  // Prediction: the GT with its first line's lanes removed -> that frame scores (0, 0, 1).
  std::ifstream in(gt);
  std::ofstream out(dir / "pred.json");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (n++ == 0) j["lanes"] = nlohmann::json::array();
    j["run_time"] = 20;
    out << j.dump() << "\n";
  }
  out.close();
  const auto printed = nlohmann::json::parse(run_eval({"--pred", (dir / "pred.json").string(), "--gt", gt.string()}));
  REQUIRE(printed.is_array());
  REQUIRE(printed.size() == 3);
  CHECK(printed[0]["name"] == "Accuracy");
  CHECK(printed[0]["value"].get<double>() == Approx(5.0 / 6.0));
  CHECK(printed[1]["value"].get<double>() == 0.0);
  CHECK(printed[2]["value"].get<double>() == Approx(1.0 / 6.0));

  // --per-frame: the emptied frame comes first, with its overlay name, then the same aggregate.
  const std::string table =
      run_eval({"--pred", (dir / "pred.json").string(), "--gt", gt.string(), "--per-frame", "--top", "2"});
  std::istringstream rows(table);
  std::string header, worst, second, aggregate;
  std::getline(rows, header);
  std::getline(rows, worst);
  std::getline(rows, second);
  std::getline(rows, aggregate);
  CHECK_THAT(header, Catch::Contains("accuracy") && Catch::Contains("FN"));
  const auto first = nlohmann::json::parse(lines_of(gt).front());
  std::string overlay = first["raw_file"].get<std::string>();
  std::replace(overlay.begin(), overlay.end(), '/', '_');
  CHECK_THAT(worst, Catch::Contains(first["raw_file"].get<std::string>()) && Catch::Contains("0.0000") &&
                        Catch::Contains(overlay.substr(0, overlay.size() - 4) + ".png"));
  CHECK_THAT(second, Catch::Contains("1.0000"));
  CHECK(nlohmann::json::parse(aggregate) == printed);

  // Either way the scores are written beside --pred: aggregate and every frame, worst first.
  const auto doc = nlohmann::json::parse(lane::read_file(dir / "evaluation.json"));
  CHECK(doc["metric"] == "tusimple");
  CHECK(doc["accuracy"].get<double>() == Approx(5.0 / 6.0));
  CHECK(doc["fn"].get<double>() == Approx(1.0 / 6.0));
  CHECK(doc["frames"] == 6);
  REQUIRE(doc["rows"].size() == 6);
  CHECK(doc["rows"][0]["raw_file"] == first["raw_file"]);
  CHECK(doc["rows"][0]["accuracy"] == 0.0);
  CHECK(doc["rows"][0]["fn"] == 1.0);
  CHECK(doc["rows"][0]["overlay"] == overlay.substr(0, overlay.size() - 4) + ".png");
  CHECK(doc["rows"][1]["accuracy"] == 1.0);
  CHECK_THROWS_WITH(run_eval({"--pred", (dir / "pred.json").string(), "--gt", gt.string(), "--top", "2"}),
                    Catch::Contains("--per-frame"));
  fs::remove_all(dir);
}

TEST_CASE("eval verb rejects a missing file and requires both options", "[eval][fast]") {
  CHECK_THROWS_AS(run_eval({"--pred", "/nonexistent/pred.json", "--gt", "/nonexistent/gt.json"}), CLI::ValidationError);
  CHECK_THROWS_AS(run_eval({"--gt", (lane::test::tusimple_dir() / "test_label.json").string()}), CLI::RequiredError);
}
