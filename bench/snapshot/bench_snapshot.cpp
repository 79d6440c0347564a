// Snapshot store benchmark: a volume of N files / S bytes; first snapshot, re-snapshot of the
// unchanged volume, re-snapshot after changing 1% of the files, and restore into a new volume,
// each next to the baseline `cp -a` of the same tree measured in the same run.
//
//   bench_snapshot [--files 10000] [--total-mb 2048] [--dir /tmp]
//
// Everything is created under <dir>/lane-bench-snapshot-<pid> and deleted at the end.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "common/debris.h"
#include "storage/core/volumes.h"
#include "storage/local/directory_volumes.h"
#include "storage/local/file_clone.h"
#include "storage/local/local_snapshot_store.h"

namespace fs = std::filesystem;
using namespace lane::storage;

namespace {

class BenchVolumes : public local::DirectoryVolumes {
 public:
  explicit BenchVolumes(fs::path root) : root_(std::move(root)) {}
  std::optional<VolumeInfo> find(const std::string& n) override {
    auto it = v_.find(n);
    return it == v_.end() ? std::nullopt : std::optional<VolumeInfo>(it->second);
  }
  std::vector<VolumeInfo> list() override {
    std::vector<VolumeInfo> out;
    for (auto& [k, v] : v_) out.push_back(v);
    return out;
  }
  VolumeInfo create(const std::string& n, const std::string& size, const std::string& sc,
                    const VolumeOrigin& by) override {
    VolumeInfo v{n, size, sc, root_ / n, by, 0, {}, {}, {}};
    fs::create_directories(v.local_path);
    return v_[n] = v;
  }
  void remove(const std::string& n) override {
    fs::remove_all(v_.at(n).local_path);
    v_.erase(n);
  }
  fs::path staging_dir() override { return root_ / ".staging"; }
  void remove_debris() override { lane::remove_dead_staging(staging_dir()); }
  VolumeInfo create_from(const std::string& n, const std::string& size, const std::string& sc,
                         const VolumeOrigin& by, const fs::path& prepared) override {
    VolumeInfo v = create(n, size, sc, by);
    fs::rename(prepared, v.local_path);  // replaces the empty directory, as the local backend does
    return v;
  }

 private:
  fs::path root_;
  std::map<std::string, VolumeInfo> v_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Unique, incompressible-looking content per file (xorshift), so nothing dedups by accident.
void write_file(const fs::path& p, uint64_t size, uint64_t seed) {
  std::vector<uint64_t> buf((size + 7) / 8);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& w : buf) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w = x;
  }
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(buf.data()), size);
}

uint64_t dir_bytes(const fs::path& p) {
  uint64_t total = 0;
  for (auto& e : fs::recursive_directory_iterator(p)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 10000;
  uint64_t total_mb = 2048;
  fs::path base = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--files") files = std::atoi(argv[i + 1]);
    else if (a == "--total-mb") total_mb = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--dir") base = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: bench_snapshot [--files N] [--total-mb MB] [--dir DIR]\n");
      return 2;
    }
  }
  const fs::path root = base / fmt::format("lane-bench-snapshot-{}", ::getpid());
  fs::create_directories(root);
  const bool reflink = lane::storage::local::probe_reflink(root.string());
  const uint64_t per_file = total_mb * 1024 * 1024 / static_cast<uint64_t>(files);
  int rc = 0;
  try {
    BenchVolumes volumes(root / "volumes");
    local::LocalSnapshotStore store(root / "snapshots", volumes);
    const fs::path vol = volumes.create("data", "", "", VolumeOrigin::user()).local_path;

    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < files; ++i) {
      fs::path p = vol / fmt::format("d{:03}/f{:05}.bin", i % 100, i);
      if (i < 100) fs::create_directories(p.parent_path());
      write_file(p, per_file, static_cast<uint64_t>(i));
    }
    ::sync();
    const double t_generate = seconds_since(t0);
    // Age the files past the store's racy-mtime window so the digest cache can be used.
    ::sleep(3);

    t0 = std::chrono::steady_clock::now();
    if (std::system(fmt::format("cp -a '{}' '{}' && sync", vol.string(), (root / "cp-copy").string()).c_str()) != 0)
      throw lane::Error("cp -a failed");
    const double t_cp = seconds_since(t0);
    fs::remove_all(root / "cp-copy");

    struct Row {
      std::string what;
      double secs;
      uint64_t added;
    };
    std::vector<Row> rows;
    auto snap = [&](const std::string& what, const std::string& name) {
      auto t = std::chrono::steady_clock::now();
      SnapshotInfo info = store.create("data", name, "", {});
      rows.push_back({what, seconds_since(t), info.new_bytes});
    };
    snap("first snapshot", "s1");
    snap("re-snapshot, unchanged", "s2");
    for (int i = 0; i < files; i += 100)  // 1% of the files get new contents
      write_file(vol / fmt::format("d{:03}/f{:05}.bin", i % 100, i), per_file, static_cast<uint64_t>(i) + 777777);
    ::sync();
    snap("re-snapshot, 1% changed", "s3");

    auto t = std::chrono::steady_clock::now();
    store.restore_to_new_volume("s3", "restored");
    ::sync();
    rows.push_back({"restore to new volume", seconds_since(t), 0});

    t = std::chrono::steady_clock::now();
    auto report = store.verify("s3");
    rows.push_back({"verify (re-hash all)", seconds_since(t), 0});
    if (!report.ok()) throw lane::Error("verify failed");

    const uint64_t store_bytes = dir_bytes(root / "snapshots" / "objects");
    std::printf("volume: %d files, %.1f MiB (%.1f KiB each); generated in %.1f s\n", files,
                static_cast<double>(per_file) * files / 1048576.0, per_file / 1024.0, t_generate);
    std::printf("reflink (FICLONE) on %s: %s\n", root.c_str(), reflink ? "supported" : "NOT supported (copies)");
    std::printf("\n%-28s %10s %12s %14s\n", "operation", "seconds", "vs cp -a", "added to store");
    std::printf("%-28s %10.2f %11.1f%% %14s\n", "baseline: cp -a", t_cp, 100.0, "-");
    for (const auto& r : rows)
      std::printf("%-28s %10.2f %11.1f%% %14s\n", r.what.c_str(), r.secs, 100.0 * r.secs / t_cp,
                  format_bytes(r.added).c_str());
    std::printf("\nstore after 3 snapshots: %s on disk for %s of volume data (%llu objects)\n",
                format_bytes(store_bytes).c_str(), format_bytes(per_file * files).c_str(),
                static_cast<unsigned long long>(store.object_count()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_snapshot: %s\n", e.what());
    rc = 1;
  }
  fs::remove_all(root);
  return rc;
}
