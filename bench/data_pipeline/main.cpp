// Data-pipeline benchmark: images/s of the full training pipeline (decode -> targets ->
// augmentation -> tensors) per worker count, next to the baseline measured in the same run:
// full-resolution cv::imread alone. "Per core" is images per CPU-second of the whole process
// (CLOCK_PROCESS_CPUTIME_ID), which stays meaningful on a shared, loaded machine; OpenCV's own
// threading is turned off so that each worker is one thread. With workers, each count is run
// twice: batches packed on the caller's thread (the baseline) and on the loader's batch thread;
// "caller ms/img" is the CPU time of the thread that calls next() (the trainer's), per image.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "train/data/synth.h"
#include "train/data/tensors/loader.h"
#include "train/data/tusimple_labels.h"

namespace {

double cpu_seconds(clockid_t clock = CLOCK_PROCESS_CPUTIME_ID) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timer {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  double thread_cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  double wall_s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(); }
  double cpu_s() const { return cpu_seconds() - cpu; }
  double thread_cpu_s() const { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - thread_cpu; }
};

struct Config {
  int workers = 0;
  bool batch_thread = false;
  std::string name() const {
    if (workers == 0) return "pipeline (decode/2 -> tensors), 0 workers";
    return fmt::format("{} workers, packed {}", workers, batch_thread ? "on the batch thread" : "by the caller");
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Data pipeline benchmark: training pipeline images/s vs full-resolution cv::imread"};
  int frames = 64, passes = 3, batch = 8, height = 368, width = 640;
  std::string data_dir;
  std::vector<int> worker_counts = {0, 1, 2};
  bool augment = true;
  app.add_option("--frames", frames, "Synthetic 1280x720 frames to generate")->capture_default_str();
  app.add_option("--passes", passes, "Epochs timed per configuration")->capture_default_str();
  app.add_option("--batch", batch, "Batch size")->capture_default_str();
  app.add_option("--height", height, "Network input height")->capture_default_str();
  app.add_option("--width", width, "Network input width")->capture_default_str();
  app.add_option("--workers", worker_counts, "Worker counts to measure (0: no worker threads)");
  app.add_option("--data", data_dir, "Use this set (label_data_train.json) instead of generating one");
  app.add_option("--augment", augment, "Training augmentation on")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  cv::setNumThreads(1);
  torch::set_num_threads(1);  // batch packing on the calling thread only

  std::filesystem::path root = data_dir;
  const bool generated = data_dir.empty();
  if (generated) {
    root = std::filesystem::temp_directory_path() / fmt::format("lane-bench-data-{}", ::getpid());
    lane::data::SynthOptions s;
    s.out = root;
    s.frames = frames;
    s.seed = 1;
    s.val_fraction = 0;
    lane::data::generate_synth_dataset(s);
  }
  const auto labels = lane::data::load_label_file(root / "label_data_train.json").labels;

  // Baseline: full-resolution decode alone (one warm-up pass fills the page cache).
  for (const auto& l : labels) (void)cv::imread((root / l.raw_file).string());
  Timer base;
  size_t decoded = 0;
  for (int p = 0; p < passes; ++p)
    for (const auto& l : labels) decoded += !cv::imread((root / l.raw_file).string(), cv::IMREAD_COLOR).empty();
  const double imread_wall = double(decoded) / base.wall_s(), imread_cpu = double(decoded) / base.cpu_s();

  // The ceiling for any pipeline that decodes at half size: the reduced decode alone.
  Timer reduced;
  for (int p = 0; p < passes; ++p)
    for (const auto& l : labels) (void)cv::imread((root / l.raw_file).string(), cv::IMREAD_REDUCED_COLOR_2);
  const double reduced_wall = double(decoded) / reduced.wall_s(), reduced_cpu = double(decoded) / reduced.cpu_s();

  std::cout << fmt::format("{} frames 1280x720 (synthetic JPEG q90), input {}x{}, batch {}, augment {}, {} passes\n",
                           labels.size(), height, width, batch, augment ? "on" : "off", passes);
  std::cout << fmt::format("{:<44} {:>9} {:>13} {:>19} {:>14}\n", "configuration", "images/s", "images/CPU-s",
                           "per-core vs imread", "caller ms/img");
  std::cout << fmt::format("{:<44} {:>9.1f} {:>13.1f} {:>19}\n", "baseline: cv::imread full resolution", imread_wall,
                           imread_cpu, "1.00x");
  std::cout << fmt::format("{:<44} {:>9.1f} {:>13.1f} {:>18.2f}x\n", "cv::imread IMREAD_REDUCED_COLOR_2 alone",
                           reduced_wall, reduced_cpu, reduced_cpu / imread_cpu);
  std::vector<Config> configs;
  for (int workers : worker_counts)
    for (bool batch_thread : {false, true})
      if (workers > 0 || !batch_thread) configs.push_back({workers, batch_thread});
  for (const Config& c : configs) {
    const int workers = c.workers;
    lane::data::LoaderOptions o;
    o.pipeline.data_dir = root;
    o.pipeline.label_files = {"label_data_train.json"};
    o.batch_size = batch;
    o.pipeline.input_height = height;
    o.pipeline.input_width = width;
    o.pipeline.augment = augment;
    o.pipeline.use_workers = workers > 0;
    o.pipeline.num_workers = std::max(1, workers);
    o.batch_thread = c.batch_thread;
    lane::data::TusimpleLoader loader(o);
    size_t images = 0;
    Timer t;
    for (int p = 0; p < passes; ++p) {
      loader.start_epoch(p);
      while (auto b = loader.next()) images += size_t(b->images.size(0));
    }
    const double wall = double(images) / t.wall_s(), cpu = double(images) / t.cpu_s();
    const double caller_ms = 1e3 * t.thread_cpu_s() / double(images);
    std::cout << fmt::format("{:<44} {:>9.1f} {:>13.1f} {:>18.2f}x {:>14.3f}\n", c.name(), wall, cpu,
                             cpu / imread_cpu, caller_ms);
  }
  if (generated) std::filesystem::remove_all(root);
  return 0;
}
