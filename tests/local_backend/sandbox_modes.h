#pragma once
// Helpers of the tests that run jobs with each sandbox mechanism (test_isolation, test_limits).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

namespace lane::test {

inline bool bwrap_works() { return std::system("bwrap --ro-bind / / true > /dev/null 2>&1") == 0; }

// The sandbox mechanisms this host can run: unshare needs root, bwrap needs bubblewrap.
inline std::vector<std::string> sandbox_modes() {
  std::vector<std::string> out;
  if (geteuid() == 0) out.push_back("unshare");
  if (bwrap_works()) out.push_back("bwrap");
  if (out.size() < 2) WARN("only these sandbox mechanisms can run here: " << out.size());
  return out;
}

// Polls `cond` every 50 ms for up to `seconds`.
inline bool wait_until(const std::function<bool()>& cond, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return cond();
}

}  // namespace lane::test
