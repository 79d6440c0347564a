// The field table against `describe job`: a row shown in the Run:AI layout changes its line, a
// row of a given flag adds or changes its line, with its value, and every row is in `describe -o json`'s spec.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "cli/job_description.h"
#include "submit/core/spec_fields.h"
#include "submit/core/workload_json.h"
#include "support/spec_field_samples.h"

using namespace lane::submit;

namespace {

// The line of `label` in describe's text of `spec`, "" when there is none.
std::string line_of(const JobSpec& spec, std::string_view label) {
  JobInfo job;
  job.spec = spec;
  std::ostringstream out;
  lane::cli::print_job_description(job, false, out);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(std::string(label) + " ", 0) == 0) return line;
  return "";
}

}  // namespace

TEST_CASE("spec fields: describe shows every row that has a line, and its JSON holds all of them", "[cli][fast]") {
  for (const auto& f : spec_fields()) {
    INFO(f.json_key);
    auto [without, with] = lane::test::sample_pair(std::string(f.json_key));
    JobInfo job;
    job.spec = with;
    CHECK(job_to_json(job, true)["spec"].contains(std::string(f.json_key)));
    switch (f.describe.place) {
      case DescribePlace::kHeader:
        CHECK_FALSE(line_of(with, f.describe.label).empty());
        CHECK(line_of(with, f.describe.label) != line_of(without, f.describe.label));
        break;
      case DescribePlace::kFlags:
        CHECK(line_of(with, f.describe.label) != line_of(without, f.describe.label));  // a shared line changes
        CHECK(line_of(with, f.describe.label) == fmt::format("{:<25}{}", f.describe.label, f.describe.value(with)));
        break;
      case DescribePlace::kJsonOnly: break;
    }
  }
}
