#pragma once
// Helpers of the reliability tests that run real jobs (test_path_attacks, test_live_snapshots).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "support/lanectl_runner.h"

namespace lane::test {

inline bool bwrap_works() { return std::system("bwrap --ro-bind / / true > /dev/null 2>&1") == 0; }

// Submits `script` as job `job` with `--pvc pvc` (a new claim, pvc-<job>-0) and waits until it
// has written /data/ready.
inline void start_until_ready(Lanectl& l, const std::string& job, const std::string& pvc, const std::string& script) {
  auto r = l.run({"submit", job, "-i", "x", "--pvc", pvc, "--command", "--", "/bin/sh", "-c", script});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::filesystem::path ready = l.home() / "volumes" / fmt::format("pvc-{}-0", job) / "ready";
  for (int i = 0; i < 300 && !std::filesystem::exists(ready); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  INFO(l.run({"logs", job}).out);
  REQUIRE(std::filesystem::exists(ready));
}

}  // namespace lane::test
