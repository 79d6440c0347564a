// --help of the v1 verbs: each ends with examples of itself; habits from other tools get a
// pointer to the verb that does it here.
#include <catch2/catch.hpp>

#include <sstream>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("each v1 verb's --help ends with examples of that verb", "[cli][fast]") {
  Lanectl l;
  for (const std::string verb : {"attach", "bash", "cluster", "config", "delete", "describe", "exec", "lineage", "list",
                                 "logs", "project", "restore", "snapshot", "suspend", "resume", "top", "volume",
                                 "dashboard", "completion"}) {
    auto r = l.run({verb, "--help"});
    INFO(verb << ":\n" << r.out);
    REQUIRE(r.code == 0);
    const auto at = r.out.find("\nExamples:\n");
    REQUIRE(at != std::string::npos);
    std::istringstream lines(r.out.substr(at + 11));
    int examples = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      CHECK(line.find("lanectl " + verb + " ") != std::string::npos);  // an example of this verb
      ++examples;
    }
    CHECK(examples >= 2);
  }
}

TEST_CASE("lanectl stop points to suspend and delete, not to the nearest spelling top", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"stop", "train-1"});
  CHECK(r.code == 2);
  CHECK(r.err.find("lanectl suspend JOB") != std::string::npos);
  CHECK(r.err.find("lanectl delete job JOB") != std::string::npos);
  CHECK(r.err.find("'top'") == std::string::npos);
}
