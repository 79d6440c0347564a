// The Run:AI v2 command tree and flags (training/workspace/workload/pvc/node/nodepool), through the
// real binary on the local backend and in-process: the v2 spellings' own rules, did-you-mean for
// v2 spellings on v1 verbs, grouped --help (docs/cli.md's tables: test_cli_v2_table.cpp).
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "fake_backend.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"
#include "test_paths.h"

using lane::test::Lanectl;
using lane::test::RunResult;

using lane::test::has;

TEST_CASE("v2 --new-pvc claimname creates the claim under its name, once", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"training", "submit", "j2", "-i", "x", "--new-pvc", "claimname=scratch,size=1Mi,path=/s", "-c", "--", "true"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  r = l.run({"volume", "list", "-o", "json"});
  REQUIRE(r.code == 0);
  const auto items = nlohmann::json::parse(r.out)["items"];
  REQUIRE(items.size() == 1);
  CHECK(items[0]["name"] == "scratch");
  CHECK(items[0]["size"] == "1Mi");
  CHECK(items[0]["origin"] == "job/default/j2");
  // Another job cannot create it again; it mounts it with --existing-pvc.
  r = l.run({"training", "submit", "j3", "-i", "x", "--new-pvc", "claimname=scratch,size=1Mi,path=/s", "-c", "--", "true"});
  CHECK(r.code != 0);
  CHECK(has(r.err, "volume 'scratch' already exists"));
  r = l.run({"training", "submit", "j3", "-i", "x", "--existing-pvc", "claimname=scratch,path=/s", "-c", "--", "true"});
  INFO(r.err);
  CHECK(r.code == 0);
}
