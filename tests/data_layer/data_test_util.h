#pragma once
// Helpers shared by the data-layer tests: temporary folders and a small synthetic data set.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <opencv2/core.hpp>

#include "test_paths.h"
#include "train/data/synth.h"

namespace lane::test {

class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("lane-data-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Whether two images have the same size, type and pixels.
inline bool identical(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && a.type() == b.type() && cv::norm(a, b, cv::NORM_INF) == 0;
}

// A synthetic TuSimple set (all frames in label_data_train.json) in a fresh folder.
inline void make_synth_set(const std::filesystem::path& dir, int frames, uint64_t seed) {
  data::SynthOptions o;
  o.out = dir;
  o.frames = frames;
  o.seed = seed;
  o.val_fraction = 0;
  data::generate_synth_dataset(o);
}

// The 512x288 sample frames with the labels of their 1280x720 originals (label_data.json): a set
// whose labels were made for larger frames.
inline void make_set_with_larger_labels(const std::filesystem::path& root) {
  std::filesystem::copy(tusimple_dir() / "tusimple_sample_512x288" / "clips", root / "clips",
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(tusimple_dir() / "label_data_0313_sample10_1280x720.json", root / "label_data.json");
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void spit(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace lane::test
