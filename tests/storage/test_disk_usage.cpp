// The bounded du-like walk behind `lanectl volume list`'s USED column.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "storage/core/disk_usage.h"
#include "tree_util.h"

namespace fs = std::filesystem;
using lane::storage::measure_directory;

namespace {

// Bytes no file system compresses away.
std::string noise(size_t n) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u;
  for (auto& c : s) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

}  // namespace

TEST_CASE("disk usage: counts allocated bytes once per hard link, never through a link, and stops at its bound",
          "[storage][fast]") {
  lane::test::TempDir tmp("du");
  const fs::path dir = tmp.path / "vol";
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "big") << noise(200000);
  fs::create_hard_link(dir / "sub" / "big", dir / "again");
  fs::create_directories(tmp.path / "outside");
  std::ofstream(tmp.path / "outside" / "huge") << noise(1000000);
  fs::create_directory_symlink(tmp.path / "outside", dir / "link");

  auto all = measure_directory(dir);
  CHECK(all.complete);
  CHECK(all.entries == 4);  // sub, sub/big, again, link
  CHECK(all.bytes >= 200000);
  CHECK(all.bytes < 400000);  // the hard link once, the symlink's target not at all

  auto bounded = measure_directory(dir, 2);
  CHECK_FALSE(bounded.complete);
  CHECK(bounded.entries == 2);
  CHECK(lane::storage::format_usage(bounded).rfind(">= ", 0) == 0);

  auto missing = measure_directory(tmp.path / "nope");
  CHECK(missing.complete);
  CHECK(missing.bytes == 0);
}
