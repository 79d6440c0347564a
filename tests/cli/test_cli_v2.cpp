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
  // A claim that does not exist is refused before anything is made (--pvc NAME:PATH would create
  // it, as runai does; --existing-pvc says the claim is there): a misspelt name is not an empty
  // new volume.
  r = l.run({"training", "submit", "j4", "-i", "x", "--existing-pvc", "claimname=scrach,path=/s", "-c", "--", "true"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "--existing-pvc claimname=scrach: project 'default' has no claim 'scrach' (its claims: scratch)"));
  CHECK(has(r.err, "--new-pvc claimname=scrach,size=SIZE,path=/s"));
  CHECK(l.run({"describe", "job", "j4"}).code != 0);
  r = l.run({"volume", "list", "-o", "json"});
  CHECK(nlohmann::json::parse(r.out)["items"].size() == 1);
  // The claim must be the job's project's.
  REQUIRE(l.run({"project", "create", "team-b", "--gpu-quota", "1"}).code == 0);
  r = l.run({"training", "submit", "j5", "-p", "team-b", "-i", "x", "--existing-pvc", "claimname=x,path=/s", "-c",
             "--", "true"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "project 'team-b' has no claim 'x' (it has no claims)"));
}
