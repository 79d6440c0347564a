// `list nodes` / `cluster nodes` on the local backend with no nodes declared: the GPUs
// `nvidia-smi --query-gpu=name` lists (a fake nvidia-smi on PATH here), or, without any, how to
// declare them; and the fix named when a job is over its project's quota.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "support/lanectl_runner.h"
#include "support/text_has.h"

using lane::test::Lanectl;

namespace {

using lane::test::has;

// A fresh directory for the fake nvidia-smi, removed at the end.
struct BinDir {
  BinDir() {
    char tmpl[] = "/tmp/lanectl-nvsmi-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~BinDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path path;
};

// A directory holding an nvidia-smi that prints `body` (a shell script's lines) for the
// lanectl runner's PATH.
std::string fake_nvidia_smi(const std::filesystem::path& dir, const std::string& body) {
  const auto path = dir / "nvidia-smi";
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
  return dir.string() + ":" + std::getenv("PATH");
}

}  // namespace

TEST_CASE("list nodes shows the GPUs nvidia-smi lists when no nodes are declared", "[local_backend][fast]") {
  BinDir bin;
  Lanectl l;
  l.set_env("PATH", fake_nvidia_smi(bin.path,
                                    "[ \"$1\" = --query-gpu=name ] || exit 6\n"
                                    "echo 'NVIDIA H100 80GB HBM3'\necho 'NVIDIA H100 80GB HBM3'\n"));
  auto r = l.run({"list", "nodes"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "(detected)"));
  CHECK(has(r.err, "2 GPU(s) detected with nvidia-smi (2x NVIDIA H100 80GB HBM3)"));
  CHECK(has(r.err, "lanectl cluster set-nodes "));
  auto json = l.run({"cluster", "nodes", "-o", "json"});
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc[0]["gpus"] == 2);
  CHECK(doc[0]["gpuModels"] == "2x NVIDIA H100 80GB HBM3");

  REQUIRE(l.run({"cluster", "set-nodes", "node-a=4"}).code == 0);  // declared nodes: no note
  r = l.run({"list", "nodes"});
  CHECK(has(r.out, "node-a"));
  CHECK_FALSE(has(r.err, "nvidia-smi"));
}

TEST_CASE("list nodes says how to declare GPUs when nvidia-smi finds none", "[local_backend][fast]") {
  BinDir bin;
  Lanectl l;
  // As with a driver that is not loaded: a message on stdout, a failing exit code.
  l.set_env("PATH", fake_nvidia_smi(bin.path, "echo 'NVIDIA-SMI has failed because it could not communicate'\n"
                                              "exit 9\n"));
  auto r = l.run({"list", "nodes"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.err, "no nodes declared and no GPU detected"));
  CHECK(has(r.err, "lanectl cluster set-nodes NAME=GPUS..."));
  CHECK(nlohmann::json::parse(l.run({"cluster", "nodes", "-o", "json"}).out)[0]["gpus"] == 0);
}

TEST_CASE("a job over a project's quota without over-quota is told the quota's fixes, not set-nodes",
          "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=8"}).code == 0);
  REQUIRE(l.run({"project", "create", "team", "--gpu-quota", "2", "--no-over-quota"}).code == 0);
  auto r = l.run({"submit", "big", "-p", "team", "-g", "3", "-i", "x", "--command", "--", "true"});
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(has(r.err, "requests 3 GPUs but project team has a quota of 2 and over-quota is disabled"));
  CHECK(has(r.err, "lanectl project set team --gpu-quota 3"));
  CHECK(has(r.err, "lanectl project set team --gpu-quota 2 --over-quota"));
  CHECK_FALSE(has(r.err, "set-nodes"));
}
