// cli/lineage_compare.h: what `lanectl lineage A --compare B` calls identical, and what not.
#include <catch2/catch.hpp>

#include <sstream>

#include "cli/lineage_compare.h"

using lane::cli::compare_final_metrics;
using nlohmann::json;

TEST_CASE("final metrics compare by their exact bits, timings are shown but not compared", "[cli][fast]") {
  const json a = {{"train", {{"loss", 0.1}, {"images_per_s", 5.0}}}, {"val", {{"accuracy", 0.9}}}};
  json b = a;
  b["train"]["images_per_s"] = 7.5;
  auto same = compare_final_metrics(a, b);
  CHECK(same.identical());
  CHECK(same.timings() == std::vector<std::string>{"train.images_per_s"});

  // The wall-clock stamp scnn-train writes in every record (`time`) is not compared either.
  json stamped_a = a, stamped_b = a;
  stamped_a["train"]["time"] = 1764230000.25;
  stamped_b["train"]["time"] = 1764230300.5;
  stamped_b["val"]["time"] = 1764230301.0;
  stamped_a["val"]["time"] = 1764230001.0;
  auto stamped = compare_final_metrics(stamped_a, stamped_b);
  CHECK(stamped.identical());
  CHECK(stamped.timings() == std::vector<std::string>{"train.images_per_s", "train.time", "val.time"});

  b["val"]["accuracy"] = 0.9000000000000001;  // one ulp away
  auto diff = compare_final_metrics(a, b);
  CHECK_FALSE(diff.identical());
  CHECK(diff.differing() == std::vector<std::string>{"val.accuracy"});

  b = a;
  b["train"]["loss"] = -0.0;
  json z = a;
  z["train"]["loss"] = 0.0;
  CHECK_FALSE(compare_final_metrics(z, b).identical());  // equal as numbers, not as bits

  b = a;
  b["val"].erase("accuracy");  // a metric only one run has
  auto missing = compare_final_metrics(a, b);
  CHECK(missing.differing() == std::vector<std::string>{"val.accuracy"});
  std::ostringstream out;
  print_comparison(out, "x", "y", missing);
  CHECK(out.str().find("val.accuracy        0.9  -\n") != std::string::npos);
  CHECK(out.str().find("The final metrics of x and y differ in 1 of 2 values: val.accuracy.\n") != std::string::npos);
  CHECK_FALSE(compare_final_metrics(json::object(), json::object()).identical());  // nothing to compare
}
