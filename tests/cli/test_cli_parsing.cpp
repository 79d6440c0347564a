// Unit tests of the flag parsers (no processes).
#include <catch2/catch.hpp>

#include "cli/duration_format.h"
#include "cli/parse_errors.h"
#include "cli/spec_parsing.h"
#include "common/error.h"
#include "submit/core/duration.h"

using namespace lane::cli;

TEST_CASE("pvc flag: new-claim forms", "[cli][fast]") {
  auto a = parse_pvc(":3Gi:/data:ro");
  CHECK(a.create);
  CHECK(a.storage_class.empty());
  CHECK(a.size == "3Gi");
  CHECK(a.mount_path == "/data");
  CHECK(a.read_only);
  auto b = parse_pvc("azurenetappfiles:100Gi:/mnt");
  CHECK(b.create);
  CHECK(b.storage_class == "azurenetappfiles");
  CHECK(b.size == "100Gi");
  CHECK_FALSE(b.read_only);
}

TEST_CASE("pvc flag: existing-claim forms", "[cli][fast]") {
  auto a = parse_pvc("pvc-download-tusimple-data-0:/mnt");
  CHECK_FALSE(a.create);
  CHECK(a.claim == "pvc-download-tusimple-data-0");
  CHECK(a.mount_path == "/mnt");
  auto b = parse_pvc("my-pvc:/data:ro");
  CHECK_FALSE(b.create);
  CHECK(b.read_only);
  CHECK(parse_pvc("my-pvc:/data:rw").read_only == false);
}

TEST_CASE("pvc flag: malformed values name the value and the forms", "[cli][fast]") {
  for (const char* bad : {"justone", "a:b:c:d:e", ":notasize:/mnt", "sc:1Gi:relative", "claim:/m:maybe", ":0:/mnt"}) {
    try {
      parse_pvc(bad);
      FAIL("accepted " << bad);
    } catch (const lane::UsageError& e) {
      std::string msg = e.what();
      CHECK(msg.find(bad) != std::string::npos);
      CHECK(msg.find("ExistingClaim:MountPath") != std::string::npos);
    }
  }
}

TEST_CASE("volume, env and port flags parsing", "[cli][fast]") {
  auto v = parse_host_mount("/host:/in:ro");
  CHECK(v.host_path == "/host");
  CHECK(v.container_path == "/in");
  CHECK(v.read_only);
  CHECK_THROWS_AS(parse_host_mount("host:/in"), lane::UsageError);
  auto e = parse_env("USE_WORKERS=true");
  CHECK(e.name == "USE_WORKERS");
  CHECK(e.value == "true");
  CHECK(parse_env("A=b=c").value == "b=c");
  CHECK_THROWS_AS(parse_env("NOVALUE"), lane::UsageError);
  CHECK_THROWS_AS(parse_env("1A=x"), lane::UsageError);
  CHECK(to_string(lane::submit::parse_port("8080:80")) == "8080:80");
  CHECK_THROWS_AS(lane::submit::parse_port("70000"), lane::UsageError);
}

TEST_CASE("since durations", "[cli][fast]") {
  using lane::submit::parse_duration_seconds;
  CHECK(parse_duration_seconds("5s") == 5);
  CHECK(parse_duration_seconds("2m") == 120);
  CHECK(parse_duration_seconds("1h30m") == 5400);
  CHECK_FALSE(parse_duration_seconds("10").has_value());
  CHECK_FALSE(parse_duration_seconds("x").has_value());
  CHECK_FALSE(parse_duration_seconds("").has_value());
  // Zero only where a zero duration means something (a TTL): "0" or zero with units.
  CHECK_FALSE(parse_duration_seconds("0s").has_value());
  CHECK(parse_duration_seconds("0s", true) == 0);
  CHECK(parse_duration_seconds("0", true) == 0);
  CHECK(parse_duration_seconds("0h0m", true) == 0);
  CHECK(parse_duration_seconds("1h", true) == 3600);
  CHECK_FALSE(parse_duration_seconds("0sm", true).has_value());
  CHECK_FALSE(parse_duration_seconds("10", true).has_value());
}

TEST_CASE("logs --since-time: RFC 3339 times with Z or an offset, fractions dropped", "[cli][fast]") {
  CHECK(parse_rfc3339_seconds("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_rfc3339_seconds("2021-03-05T16:23:42Z") == 1614961422);
  CHECK(parse_rfc3339_seconds("2021-03-05t16:23:42.987z") == 1614961422);
  CHECK(parse_rfc3339_seconds("2021-03-05T17:23:42+01:00") == 1614961422);
  CHECK(parse_rfc3339_seconds("2021-03-05T11:23:42-05:00") == 1614961422);
  CHECK(parse_rfc3339_seconds("2024-02-29T00:00:00Z") == 1709164800);
  for (const char* bad : {"", "2021-03-05", "2021-03-05 16:23:42Z", "2021-03-05T16:23:42", "2021-13-05T16:23:42Z",
                          "2021-03-05T16:23:42+0100", "2021-03-05T16:23:42.Z", "yesterday", "2021-03-05T16:23:42Zx"}) {
    INFO(bad);
    CHECK_FALSE(parse_rfc3339_seconds(bad).has_value());
  }
}

TEST_CASE("edit distance: insertions, deletions, substitutions and neighbour swaps cost 1", "[cli][fast]") {
  auto [a, b, d] = GENERATE(table<std::string, std::string, size_t>({
      {"submit", "submit", 0}, {"sumbit", "submit", 1}, {"lisst", "list", 1}, {"gpus", "gpu", 1},
      {"crate", "create", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"describe", "delete", 5}}));
  INFO(a << " / " << b);
  CHECK(edit_distance(a, b) == d);
  CHECK(edit_distance(b, a) == d);
}

TEST_CASE("closest name: only likely typos get a suggestion", "[cli][fast]") {
  const std::vector<std::string> verbs = {"submit", "submit-mpi", "mpi", "mj", "list", "logs", "delete"};
  CHECK(closest_name("sumbit", verbs) == std::optional<std::string>("submit"));
  CHECK(closest_name("lst", verbs) == std::optional<std::string>("list"));
  CHECK(closest_name("frobnicate", verbs) == std::nullopt);
  CHECK(closest_name("mk", verbs) == std::nullopt);  // 1 edit of a 2-letter word is no evidence
  CHECK(closest_name("--gpus", {"--gpu", "-g", "--name"}) == std::optional<std::string>("--gpu"));
  CHECK(closest_name("-x", {"-g", "-p"}) == std::nullopt);
}
