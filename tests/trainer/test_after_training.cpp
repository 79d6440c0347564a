// The end-of-training snapshot seam: scnn-train links no control plane and runs
// `lanectl __training-snapshot` instead (train/trainer/after_training.h). These cases run a stand-in
// lanectl (a shell script) to check the command line, the environment it inherits, the
// program lookup and the errors; tests/e2e/seed_workflow.sh runs the real one in a training job.
#include "catch_torch.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "lane/version.h"
#include "train/trainer/after_training.h"
#include "trainer_test_util.h"

using namespace lane;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for the scope, restoring the previous value.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

// A stand-in `lanectl` in dir that writes its arguments (one a line) and PVC_NAME to record,
// then exits with code.
fs::path fake_lanectl(const fs::path& dir, const fs::path& record, int code) {
  fs::create_directories(dir);
  const fs::path p = dir / "lanectl";
  std::ofstream(p) << "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > '" << record.string()
                   << "'\necho \"PVC_NAME=$PVC_NAME\" >> '" << record.string() << "'\nexit " << code << "\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("ENABLE_SNAPSHOT asks for the end-of-training snapshot only when true, 1 or yes", "[trainer][fast]") {
  for (const char* on : {"true", "TRUE", "1", "yes"}) {
    ScopedEnv e("ENABLE_SNAPSHOT", on);
    CHECK(train::snapshot_requested());
  }
  for (const char* off : {"false", "0", "", "no", "maybe"}) {
    ScopedEnv e("ENABLE_SNAPSHOT", off);
    CHECK_FALSE(train::snapshot_requested());
  }
}

TEST_CASE("the snapshot program is the lanectl beside scnn-train, else lanectl on PATH", "[trainer][fast]") {
  test::ScratchDir dir("snapshot_program");
  CHECK(train::snapshot_program(dir.path) == fs::path("lanectl"));
  std::ofstream(dir.path / "lanectl") << "not executable\n";
  fs::permissions(dir.path / "lanectl", fs::perms::owner_read | fs::perms::owner_write);
  CHECK(train::snapshot_program(dir.path) == fs::path("lanectl"));
  fs::permissions(dir.path / "lanectl", fs::perms::owner_all);
  CHECK(train::snapshot_program(dir.path) == dir.path / "lanectl");
}

TEST_CASE("after training, ENABLE_SNAPSHOT=true runs lanectl __training-snapshot with the run's folder", "[trainer][fast]") {
  test::ScratchDir dir("after_training");
  const fs::path record = dir.path / "record.txt";
  fake_lanectl(dir.path / "bin", record, 0);
  ScopedEnv path("PATH", (dir.path / "bin").string() + ":" + std::getenv("PATH"));
  ScopedEnv enable("ENABLE_SNAPSHOT", "true");
  ScopedEnv pvc("PVC_NAME", "pvc-data-0");
  auto config = test::tiny_config(dir.path / "runs");
  train::after_training(config, train::TrainingResult{});
  // The test binary has no lanectl beside it: the one on PATH ran, with the run's folder, this
  // build's revision and the job's environment.
  CHECK(slurp(record) == "__training-snapshot\n--output-dir\n" + (dir.path / "runs").string() +
                             "\n--code-version\n" + kGitRevision + "\nPVC_NAME=pvc-data-0\n");

  fs::remove(record);
  ScopedEnv off("ENABLE_SNAPSHOT", "false");
  train::after_training(config, train::TrainingResult{});
  CHECK_FALSE(fs::exists(record));
}

TEST_CASE("a failing or missing snapshot program is an error that names it and the fix", "[trainer][fast]") {
  test::ScratchDir dir("after_training_fail");
  const fs::path record = dir.path / "record.txt";
  const auto usage = fake_lanectl(dir.path / "usage", record, 2);
  try {
    train::run_snapshot_program({usage.string(), "__training-snapshot"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kUsage);
    CHECK_THAT(e.what(), Catch::Contains(usage.string()) && Catch::Contains("exited with 2"));
  }
  const auto failing = fake_lanectl(dir.path / "failing", record, 5);
  CHECK_THROWS_WITH(train::run_snapshot_program({failing.string()}), Catch::Contains("exited with 5"));
  ScopedEnv path("PATH", (dir.path / "empty").string());
  CHECK_THROWS_WITH(train::run_snapshot_program({"lanectl", "__training-snapshot"}),
                    Catch::Contains("lanectl") && Catch::Contains("ENABLE_SNAPSHOT=false"));
}
