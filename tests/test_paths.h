#pragma once
// Where tests find the repository, its sample data and the built binaries.
#include <filesystem>

namespace lane::test {

inline std::filesystem::path source_dir() { return LANE_SOURCE_DIR; }
inline std::filesystem::path data_dir() { return LANE_TEST_DATA_DIR; }        // tests/data
inline std::filesystem::path tusimple_dir() { return data_dir() / "tusimple"; }  // real TuSimple samples
inline std::filesystem::path bin_dir() { return LANE_BIN_DIR; }               // lanectl, scnn-train

}  // namespace lane::test
