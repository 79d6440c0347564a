// kubectl habits on the local backend (issue 31, item 5), through the real binary: a job's
// --label and `list -l`, `wait --for`, and `cp` out of its mounts without following a link out.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/lanectl_runner.h"
#include "support/text_has.h"

using lane::test::Lanectl;
namespace fs = std::filesystem;

namespace {

using lane::test::has;

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
  CHECK(l.run({"cp", "files:/data/runs/notes.txt", "files:/data/x"}).code == 2);
  fs::remove_all(host);
  fs::remove(secret);
  fs::remove_all(out);
}

TEST_CASE("local: cp copies a file into a job's mount and never writes through a link out", "[local_backend][fast]") {
  Lanectl l;
  const std::string base = (l.home().parent_path() / l.home().filename()).string();
  const fs::path host = base + "-in", ro = base + "-ro", outside = base + "-outside", local = base + "-local.txt";
  fs::create_directories(host / "runs");
  fs::create_directories(ro);
  fs::create_directories(outside);
  std::ofstream(outside / "secret") << "host secret";
  fs::create_symlink(outside, host / "out");                     // a directory link out of the volume
  fs::create_symlink(outside / "secret", host / "runs" / "link");  // a file link out of it
  std::ofstream(local) << "lr: 0.01\n";
  REQUIRE(l.run({"submit", "files", "-i", "x", "-v", host.string() + ":/data", "-v", ro.string() + ":/ro:ro",
                 "--command", "--", "true"}).code == 0);

  auto r = l.run({"cp", local.string(), "files:/data/runs/config.yaml"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp_file(host / "runs" / "config.yaml") == "lr: 0.01\n");
  r = l.run({"cp", "files:/data/runs/config.yaml", base + "-back.yaml"});
  CHECK(r.code == 0);
  CHECK(slurp_file(base + "-back.yaml") == "lr: 0.01\n");
  r = l.run({"cp", local.string(), "files:/data/runs"});  // into a directory: under the file's own name
  CHECK(r.code == 0);
  CHECK(slurp_file(host / "runs" / fs::path(local).filename()) == "lr: 0.01\n");

  r = l.run({"cp", local.string(), "files:/data/out/secret"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "links are not followed"));
  r = l.run({"cp", local.string(), "files:/data/runs/link"});  // the link is replaced, its target untouched
  CHECK(r.code == 0);
  CHECK(slurp_file(outside / "secret") == "host secret");
  CHECK_FALSE(fs::is_symlink(host / "runs" / "link"));
  CHECK(std::distance(fs::directory_iterator(outside), fs::directory_iterator()) == 1);
  r = l.run({"cp", local.string(), "files:/ro/config.yaml"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "read-only"));
  CHECK_FALSE(fs::exists(ro / "config.yaml"));
  r = l.run({"cp", local.string(), "files:/etc/passwd"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "on none of the job's volumes"));
  for (const auto& e : fs::directory_iterator(host / "runs"))  // no temporary file is left behind
    CHECK(e.path().filename().string().find("lanectl-cp") == std::string::npos);
  for (const fs::path& p : {host, ro, outside}) fs::remove_all(p);
  fs::remove(local);
  fs::remove(base + "-back.yaml");
}
