// What a training run leaves in its output directory (RunLayout, MetricsRecord), and the one
// spelling of booleans in settings and environment variables.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "common/boolean_text.h"
#include "common/run_outputs.h"

using lane::MetricsRecord;

TEST_CASE("the run layout names scnn-train's output files", "[common][fast]") {
  const lane::RunLayout run{"/mnt/runs/exp1"};
  CHECK(run.metrics() == "/mnt/runs/exp1/metrics.jsonl");
  CHECK(run.latest_checkpoint() == "/mnt/runs/exp1/checkpoint_latest.pt");
  CHECK(run.best_checkpoint() == "/mnt/runs/exp1/checkpoint_best.pt");
  CHECK(run.curves() == "/mnt/runs/exp1/training_curves.png");
}

TEST_CASE("a metrics record reads back as written", "[common][fast]") {
  const MetricsRecord train{std::string(MetricsRecord::kTrain),
                            {{"step", 12}, {"epoch", 1}, {"loss", 0.25}, {"lr", 0.0125}, {"images_per_s", 31.5}}};
  const std::string line = train.to_line();
  CHECK(line.find('\n') == std::string::npos);
  const auto back = MetricsRecord::parse(line);
  REQUIRE(back);
  CHECK(back->kind == "train");
  CHECK(back->fields == train.fields);
  CHECK(back->step() == 12);
  CHECK(back->number("loss") == 0.25);
  CHECK_FALSE(back->number("accuracy"));
  CHECK(back->to_line() == line);
}

TEST_CASE("metrics lines: torn, partial and kind-less lines", "[common][fast]") {
  const std::string text = "s\":3,\"loss\":0.5}\n"                       // the tail of a line (tail read)
                           "{\"kind\":\"val\",\"step\":4,\"accuracy\":0.9}\n"
                           "\n"
                           "{\"step\":5,\"note\":\"text\"}\n"           // no kind
                           "{\"kind\":\"\",\"step\":6}\n"               // empty kind
                           "[1,2]\n"
                           "{\"kind\":\"train\",\"st";                  // killed mid-write
  const auto records = lane::parse_metrics_records(text);
  REQUIRE(records.size() == 3);
  CHECK(records[0].kind == "val");
  CHECK(records[0].number("accuracy") == 0.9);
  CHECK(records[1].kind == MetricsRecord::kUnnamed);
  CHECK(records[1].step() == 5);
  CHECK_FALSE(records[1].number("note"));
  CHECK(records[2].kind == MetricsRecord::kUnnamed);
  CHECK_FALSE(records[2].fields.contains("kind"));
}

TEST_CASE("booleans: true, 1, yes and false, 0, no in any case, and nothing else", "[common][fast]") {
  for (const char* on : {"true", "TRUE", "True", "1", "yes", "YES"}) CHECK(lane::parse_boolean(on) == true);
  for (const char* off : {"false", "FALSE", "0", "no", "No"}) CHECK(lane::parse_boolean(off) == false);
  for (const char* neither : {"", "maybe", "2", "on", " true"}) CHECK_FALSE(lane::parse_boolean(neither));
  ::setenv("LANE_TEST_BOOLEAN", "Yes", 1);
  CHECK(lane::env_is_true("LANE_TEST_BOOLEAN"));
  ::setenv("LANE_TEST_BOOLEAN", "maybe", 1);
  CHECK_FALSE(lane::env_is_true("LANE_TEST_BOOLEAN"));
  ::unsetenv("LANE_TEST_BOOLEAN");
  CHECK_FALSE(lane::env_is_true("LANE_TEST_BOOLEAN"));
}
