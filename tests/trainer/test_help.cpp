// scnn-train's --help: every option with its real type and one default style across the verbs.
#include "catch_torch.h"

#include <regex>

#include "trainer_test_util.h"

using namespace lane;

TEST_CASE("every scnn-train verb's --help shows real types and defaults as [default: X]", "[trainer][slow]") {
  for (const std::string verb : {"train", "predict", "export", "eval", "synth", "inspect"}) {
    const auto r = test::run_command(test::scnn_train() + " " + verb + " --help");
    INFO(verb << ":\n" << r.output);
    REQUIRE(r.exit_code == 0);
    // CLI11's own styles: "--frames INT=200", "INT:INT in [0 - 100]", "TEXT:FILE", and prose defaults.
    CHECK_FALSE(std::regex_search(r.output, std::regex(R"(--[a-z-]+ [A-Z]+[:=])")));
    CHECK(r.output.find("(default") == std::string::npos);
    CHECK_FALSE(std::regex_search(r.output, std::regex(R"(\[(all|the input folder|(?!OPTIONS\])[A-Z_]+)\])")));
    CHECK_FALSE(std::regex_search(r.output, std::regex(R"(--help [A-Z])")));  // a flag takes no value
  }
  const auto train = test::run_command(test::scnn_train() + " train --help").output;
  for (const char* typed : {"--batch-size INT", "--lr FLOAT", "--use-val BOOL", "--data-dir DIR", "--train-labels LIST",
                            "--model TEXT", "--resume MODE", "--nesterov   ", "Per-rank batch size [env: BATCH_SIZE, default: 8]"})
    CHECK_THAT(train, Catch::Contains(typed));
  const auto synth = test::run_command(test::scnn_train() + " synth --help").output;
  CHECK_THAT(synth, Catch::Contains("--frames INT") && Catch::Contains("Number of labelled frames [default: 200]"));
  const auto predict = test::run_command(test::scnn_train() + " predict --help").output;
  CHECK_THAT(predict, Catch::Contains("--lane-fit INT") && Catch::Contains("(0 to 3)") &&
                          Catch::Contains("--labels FILE") && Catch::Contains("--threads INT"));
  CHECK_THAT(predict, Catch::Contains("minimum lane probability of a point (0 to 1)"));
  for (const char* flag : {"--prob-threshold", "--exist-threshold", "--relative-threshold"}) {
    INFO(flag);  // CLI::Range lets nan through; these must not
    const auto r = test::run_command(test::scnn_train() + " predict --checkpoint c.pt --input in --out out " + flag +
                                     " nan");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(std::string(flag) + ": Value nan is not a number from 0 to 1"));
  }
}
