#pragma once
// Where tests find the repository, its sample data and the built binaries.
#include <cstdlib>
#include <filesystem>

namespace lane::test {

inline std::filesystem::path source_dir() { return LANE_SOURCE_DIR; }
// tests/data; the environment's LANE_TEST_DATA_DIR runs the tests from another checkout's data
// (binaries built elsewhere: scripts/gpu-check runs the GPU tests of a bundle).
inline std::filesystem::path data_dir() {
  const char* other = std::getenv("LANE_TEST_DATA_DIR");
  return other && *other ? std::filesystem::path(other) : std::filesystem::path(LANE_TEST_DATA_DIR);
}
inline std::filesystem::path tusimple_dir() { return data_dir() / "tusimple"; }  // real TuSimple samples
// lanectl, scnn-train; LANE_TEST_BIN_DIR runs the tests against other binaries (e.g. an older
// build, to see a test fail on the code it guards against).
inline std::filesystem::path bin_dir() {
  const char* other = std::getenv("LANE_TEST_BIN_DIR");
  return other && *other ? std::filesystem::path(other) : std::filesystem::path(LANE_BIN_DIR);
}

}  // namespace lane::test
