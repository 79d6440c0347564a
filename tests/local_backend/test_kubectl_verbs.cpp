// kubectl habits on the local backend (issue 31, item 5), through the real binary: a job's
// --label and `list -l`, `wait --for`, and `cp` out of its mounts without following a link out.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string slurp_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("local: --label with list -l, and wait --for=condition", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "ok", "-i", "x", "--label", "team=vision", "--command", "--", "true"}).code == 0);
  REQUIRE(l.run({"submit", "bad", "-i", "x", "--label", "team=nlp", "--command", "--", "false"}).code == 0);
  auto r = l.run({"wait", "--for=condition=Succeeded", "ok", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out == "job/ok condition met\n");
  r = l.run({"wait", "--for=condition=Succeeded", "bad", "--timeout", "60s"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "job bad is Failed"));
  CHECK(has(r.err, "it can never be Succeeded"));
  CHECK(l.run({"wait", "--for=condition=Failed", "bad"}).code == 0);

  r = l.run({"list", "-l", "team=vision"});
  CHECK(has(r.out, "ok  "));
  CHECK(!has(r.out, "bad  "));
  CHECK(l.run({"list", "-l", "team=none"}).out == "Showing jobs for project default\nNo jobs found.\n");
  CHECK(has(l.run({"describe", "job", "ok"}).out, "team=vision"));
}

TEST_CASE("local: cp copies a job's files out of its mounts and never follows a link out", "[local_backend][fast]") {
  Lanectl l;
  const fs::path host = l.home().parent_path() / (l.home().filename().string() + "-cp");
  fs::create_directories(host / "runs");
  std::ofstream(host / "runs" / "metrics.jsonl") << "{\"loss\":0.5}\n";
  std::ofstream(host / "runs" / "notes.txt") << "epoch 1\n";
  const fs::path secret = l.home().parent_path() / (l.home().filename().string() + "-secret");
  std::ofstream(secret) << "host secret";
  fs::create_symlink(secret, host / "runs" / "escape");
  REQUIRE(l.run({"submit", "files", "-i", "x", "-v", host.string() + ":/data", "--command", "--", "true"}).code == 0);
  const fs::path out = l.home().parent_path() / (l.home().filename().string() + "-out");
  fs::create_directories(out);

  auto r = l.run({"cp", "files:/data/runs/metrics.jsonl", (out / "m.jsonl").string()});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp_file(out / "m.jsonl") == "{\"loss\":0.5}\n");
  r = l.run({"cp", "files:/data/runs", (out / "runs").string()});
  CHECK(r.code == 0);
  CHECK(slurp_file(out / "runs" / "notes.txt") == "epoch 1\n");
  CHECK(!fs::exists(out / "runs" / "escape"));  // the link is left out, its target never read
  r = l.run({"cp", "files:/data/runs/escape", (out / "escape").string()});
  CHECK(r.code == 1);
  CHECK(has(r.err, "links are not followed"));
  CHECK(!fs::exists(out / "escape"));
  r = l.run({"cp", "files:/etc/passwd", (out / "passwd").string()});
  CHECK(r.code == 1);
  CHECK(has(r.err, "cannot copy files:/etc/passwd: it is on none of the job's volumes"));
  CHECK(l.run({"cp", "files:/data/../etc/passwd", (out / "p").string()}).code == 2);
  CHECK(l.run({"cp", (out / "m.jsonl").string(), "files:/data/x"}).code == 2);
  fs::remove_all(host);
  fs::remove(secret);
  fs::remove_all(out);
}
