// Frame decode benchmark: what the training loader does to a 1280x720 JPEG before the
// augmentation (decode, then resize to the network input), with OpenCV's imgcodecs (the
// baseline: cv::imdecode full resolution + cv::resize) and with the trainer's TurboJPEG codec
// (full decode, and DCT-scaled decode at the loader's reduction). Frames are decoded from
// memory, so file I/O is out of the figures. "Per core" is images per CPU-second of the process
// (CLOCK_PROCESS_CPUTIME_ID), meaningful on a shared, loaded machine; OpenCV runs one thread.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "train/data/frame_transform.h"
#include "train/data/image_codec.h"
#include "train/data/synth.h"

namespace {

using Bytes = std::vector<uint8_t>;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Rate {
  double wall = 0, cpu = 0;  // images per second, per CPU-second
};

// Images/s of `decode` over every frame, `passes` times (after one warm-up pass).
Rate measure(const std::vector<Bytes>& frames, int passes, const std::function<cv::Mat(const Bytes&)>& decode) {
  size_t checksum = 0;
  for (const auto& f : frames) checksum += decode(f).total();
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  for (int p = 0; p < passes; ++p)
    for (const auto& f : frames) checksum += decode(f).total();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double n = double(frames.size()) * passes;
  if (checksum == 0) std::cerr << "nothing decoded\n";
  return {n / wall, n / (cpu_seconds() - cpu0)};
}

std::vector<Bytes> load_frames(const std::string& dir, int synth, int quality) {
  std::vector<Bytes> out;
  if (!dir.empty()) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
      if (e.path().extension() == ".jpg") {
        const cv::Mat m = cv::imread(e.path().string(), cv::IMREAD_COLOR);
        if (m.cols != 1280 || m.rows != 720) continue;  // TuSimple frames only
        out.emplace_back();
        cv::imencode(".jpg", m, out.back(), {cv::IMWRITE_JPEG_QUALITY, quality});
      }
  }
  for (int i = 0; i < synth; ++i) {
    out.emplace_back();
    const auto f = lane::data::render_synth_frame(lane::data::mix_seed(1, uint64_t(i)));
    cv::imencode(".jpg", f.image, out.back(), {cv::IMWRITE_JPEG_QUALITY, quality});
  }
  return out;
}

struct Row {
  std::string name;
  std::function<cv::Mat(const Bytes&)> run;
};

void print_rates(const std::vector<Bytes>& frames, int passes, const std::vector<Row>& rows) {
  std::cout << fmt::format("{:<42} {:>9} {:>13} {:>10} {:>16}\n", "configuration", "images/s", "images/CPU-s",
                           "CPU ms/img", "per-core vs base");
  double base = 0;
  for (const auto& row : rows) {
    const Rate rate = measure(frames, passes, row.run);
    if (base == 0) base = rate.cpu;
    std::cout << fmt::format("{:<42} {:>9.1f} {:>13.1f} {:>10.2f} {:>15.2f}x\n", row.name, rate.wall, rate.cpu,
                             1000.0 / rate.cpu, rate.cpu / base);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Frame decode benchmark: TurboJPEG (image_codec.h) vs cv::imdecode"};
  int passes = 20, synth = 0, quality = 95, height = 368, width = 640;
  std::string dir = std::string(LANE_SOURCE_DIR) + "/tests/data/tusimple/clips";
  app.add_option("--dir", dir, "Re-encode the 1280x720 JPEGs under this folder ('' for none)")->capture_default_str();
  app.add_option("--synth", synth, "Add this many synthetic 1280x720 frames")->capture_default_str();
  app.add_option("--quality", quality, "JPEG quality of the (re-)encoded frames (cv::imwrite)")->capture_default_str();
  app.add_option("--passes", passes, "Timed passes over the frames")->capture_default_str();
  app.add_option("--height", height, "Training input height")->capture_default_str();
  app.add_option("--width", width, "Training input width")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  cv::setNumThreads(1);
  const auto frames = load_frames(dir, synth, quality);
  if (frames.empty()) {
    std::cerr << "no 1280x720 frames: pass --dir or --synth\n";
    return 2;
  }
  lane::data::FrameGeometry g;
  g.input = cv::Size(width, height);
  const int r = lane::data::decode_reduction(g);
  const int reduced_flag = r == 8 ? cv::IMREAD_REDUCED_COLOR_8
                           : r == 4 ? cv::IMREAD_REDUCED_COLOR_4
                           : r == 2 ? cv::IMREAD_REDUCED_COLOR_2
                                    : cv::IMREAD_COLOR;
  auto resize = [&](const cv::Mat& m) { return lane::data::crop_and_resize(m, g, cv::INTER_LINEAR); };
  auto tj = [](const Bytes& b, int reduction) { return lane::data::decode_image(b, "frame", {lane::data::ImageColor::kBgr, reduction}); };

  // Same pixels? (full and reduced)
  const bool same_full = cv::norm(tj(frames[0], 1), cv::imdecode(frames[0], cv::IMREAD_COLOR), cv::NORM_INF) == 0;
  const bool same_reduced = cv::norm(tj(frames[0], r), cv::imdecode(frames[0], reduced_flag), cv::NORM_INF) == 0;

  const std::vector<Row> rows = {
      {"baseline: cv::imdecode full + cv::resize", [&](const Bytes& b) { return resize(cv::imdecode(b, cv::IMREAD_COLOR)); }},
      {fmt::format("cv::imdecode REDUCED_{} + cv::resize", r), [&](const Bytes& b) { return resize(cv::imdecode(b, reduced_flag)); }},
      {"TurboJPEG full + cv::resize", [&](const Bytes& b) { return resize(tj(b, 1)); }},
      {fmt::format("TurboJPEG scaled 1/{} + cv::resize", r), [&](const Bytes& b) { return resize(tj(b, r)); }},
      {"cv::imdecode full alone", [&](const Bytes& b) { return cv::imdecode(b, cv::IMREAD_COLOR); }},
      {"TurboJPEG full alone", [&](const Bytes& b) { return tj(b, 1); }},
  };
  size_t total = 0;
  for (const auto& f : frames) total += f.size();
  std::cout << fmt::format("{} frames 1280x720, JPEG q{} (mean {:.0f} KB), to {}x{} (decode reduction {}), {} passes\n",
                           frames.size(), quality, double(total) / frames.size() / 1024, width, height, r, passes);
  std::cout << fmt::format("pixel-identical to cv::imdecode: full {}, 1/{} {}\n", same_full ? "yes" : "NO", r,
                           same_reduced ? "yes" : "NO");
  print_rates(frames, passes, rows);
  return 0;
}
