// The synthetic TuSimple generator: layout, label format, determinism, visible markings.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "data_test_util.h"
#include "test_paths.h"
#include "train/commands/verbs.h"
#include "train/data/image_codec.h"
#include "train/data/lane_masks.h"
#include "train/data/synth.h"
#include "train/data/tusimple_labels.h"

using namespace lane;

TEST_CASE("synth writes the TuSimple layout with parseable labels and lists", "[data_layer][fast]") {
  test::TempDir dir("synth");
  data::SynthOptions o;
  o.out = dir.path();
  o.frames = 10;
  o.seed = 1;
  o.val_fraction = 0.2;
  o.test_fraction = 0.1;
  const auto summary = data::generate_synth_dataset(o);
  CHECK(summary.train == 7);
  CHECK(summary.val == 2);
  CHECK(summary.test == 1);
  data::LabelParseOptions parse;
  parse.image_root = dir.path();  // every raw_file must exist
  const auto train = data::load_label_file(dir.path() / "label_data_train.json", parse).labels;
  REQUIRE(train.size() == 7);
  CHECK(data::load_label_file(dir.path() / "label_data_val.json", parse).labels.size() == 2);
  CHECK(data::load_label_file(dir.path() / "label_data_test.json", parse).labels.size() == 1);
  CHECK(data::load_list_file(dir.path() / "lists/list6_train.txt").size() == 7);
  CHECK(data::load_list_file(dir.path() / "lists/list6_val.txt").size() == 2);
  CHECK(std::filesystem::exists(dir.path() / "lists/list_test.txt"));
  for (const auto& l : train) {
    CHECK(l.raw_file.rfind("clips/synth-train/", 0) == 0);
    CHECK(l.h_samples == data::synth_h_samples());
    CHECK(l.h_samples.front() == 160);
    CHECK(l.h_samples.back() == 710);
    CHECK(l.lanes.size() >= 2);
    CHECK(l.lanes.size() <= 5);
    const cv::Mat img = data::read_image(dir.path() / l.raw_file);
    CHECK(img.cols == 1280);
    CHECK(img.rows == 720);
  }
}

TEST_CASE("synth is deterministic for a seed", "[data_layer][fast]") {
  test::TempDir a("synth-a"), b("synth-b"), c("synth-c");
  for (auto* d : {&a, &b, &c}) {
    data::SynthOptions o;
    o.out = d->path();
    o.frames = 6;
    o.seed = d == &c ? 8 : 7;
    o.threads = d == &b ? 1 : 3;  // thread count must not matter
    data::generate_synth_dataset(o);
  }
  const std::string la = test::slurp(a.path() / "label_data_train.json");
  CHECK(!la.empty());
  CHECK(la == test::slurp(b.path() / "label_data_train.json"));
  CHECK(test::slurp(a.path() / "label_data_val.json") == test::slurp(b.path() / "label_data_val.json"));
  CHECK(test::slurp(a.path() / "lists/list6_train.txt") == test::slurp(b.path() / "lists/list6_train.txt"));
  CHECK(la != test::slurp(c.path() / "label_data_train.json"));
}

TEST_CASE("synth markings are bright where the labels put them", "[data_layer][fast]") {
  // Learnability: the rendered lane mask (what the network is trained on) must cover bright
  // marking pixels. Dashed lines have gaps, so a majority, not all, of the mask is bright.
  size_t on_mask = 0, bright = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const auto f = data::render_synth_frame(seed);
    cv::Mat grey;
    cv::cvtColor(f.image, grey, cv::COLOR_BGR2GRAY);
    const cv::Mat road = grey.rowRange(400, 720);
    cv::Mat sorted = road.reshape(1, 1).clone();
    cv::sort(sorted, sorted, cv::SORT_ASCENDING);
    const int median = sorted.at<uchar>(0, sorted.cols / 2);
    // Thin centre lines (thickness 3) so that the check looks at marking centres only.
    cv::Mat centre = cv::Mat::zeros(grey.size(), CV_8UC1);
    for (const auto& xs : f.label.lanes)
      for (size_t k = 0; k + 1 < xs.size(); ++k)
        if (xs[k] >= 0 && xs[k + 1] >= 0 && f.label.h_samples[k] >= 400)
          cv::line(centre, {xs[k], f.label.h_samples[k]}, {xs[k + 1], f.label.h_samples[k + 1]}, 255, 3);
    on_mask += size_t(cv::countNonZero(centre));
    bright += size_t(cv::countNonZero(centre & (grey > median + 40)));
  }
  REQUIRE(on_mask > 1000);
  CHECK(double(bright) / double(on_mask) > 0.5);
}

TEST_CASE("synth rejects bad options with usage errors", "[data_layer][fast]") {
  data::SynthOptions o;
  o.frames = 3;
  CHECK_THROWS_AS(data::generate_synth_dataset(o), UsageError);  // no --out
  test::TempDir dir("synth-bad");
  o.out = dir.path();
  o.frames = 0;
  CHECK_THROWS_AS(data::generate_synth_dataset(o), UsageError);
  o.frames = 3;
  o.val_fraction = 0.7;
  o.test_fraction = 0.4;
  CHECK_THROWS_AS(data::generate_synth_dataset(o), UsageError);
  o.test_fraction = 0;
  o.val_fraction = std::nan("");  // every comparison with nan is false: refused, not a set without val
  CHECK_THROWS_WITH(data::generate_synth_dataset(o), Catch::Contains("--val-fraction"));
  o.val_fraction = 0.2;
  o.threads = -1;
  CHECK_THROWS_WITH(data::generate_synth_dataset(o), Catch::Contains("--threads is -1"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "label_data_train.json"));  // nothing written
}

TEST_CASE("the synth and inspect verbs write a set and label overlays", "[data_layer][fast]") {
  test::TempDir dir("verbs");
  const auto data = dir.path() / "set", overlays = dir.path() / "overlays";
  {
    CLI::App app;
    train::Verbs verbs;
    verbs.synth = train::run_synth_verb;
    train::add_verbs(app, verbs);
    app.parse(fmt::format("synth --out {} --frames 4 --seed 2 --val-fraction 0.25", data.string()));
  }
  CHECK(data::load_label_file(data / "label_data_train.json").labels.size() == 3);
  CHECK(data::load_label_file(data / "label_data_val.json").labels.size() == 1);
  {
    CLI::App app;
    train::Verbs verbs;
    verbs.inspect = train::run_inspect_verb;
    train::add_verbs(app, verbs);
    app.parse(fmt::format("inspect --data {} --overlays {} --count 2", data.string(), overlays.string()));
  }
  const cv::Mat overlay = data::read_image(overlays / "overlay_001.png");
  CHECK(overlay.cols == 1280);
  CHECK(overlay.rows == 720);
  CHECK_FALSE(std::filesystem::exists(overlays / "overlay_002.png"));
  CLI::App app;
  train::Verbs verbs;
  verbs.inspect = train::run_inspect_verb;
  train::add_verbs(app, verbs);
  CHECK_THROWS_AS(app.parse(fmt::format("inspect --data {}", (dir.path() / "missing").string())), UsageError);
}

TEST_CASE("inspect draws labels in the frame's pixels and names labels made for other frames", "[data_layer][fast]") {
  test::TempDir dir("inspect-sizes");
  const auto small = test::tusimple_dir() / "tusimple_sample_512x288";
  std::filesystem::copy(small / "clips", dir.path() / "clips", std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(small / "label_data.json", dir.path() / "label_data.json");
  std::filesystem::copy_file(test::tusimple_dir() / "label_data_0313_sample10_1280x720.json",
                             dir.path() / "labels_1280x720.json");
  auto inspect = [&](const std::string& labels) {
    std::ostringstream captured;
    auto* old = std::cout.rdbuf(captured.rdbuf());
    try {
      CLI::App app;
      train::Verbs verbs;
      verbs.inspect = train::run_inspect_verb;
      train::add_verbs(app, verbs);
      app.parse(fmt::format("inspect --data {} --labels {} --overlays {} --count 1", dir.path().string(), labels,
                            (dir.path() / "overlays").string()));
    } catch (...) {
      std::cout.rdbuf(old);
      throw;
    }
    std::cout.rdbuf(old);
    return captured.str();
  };
  const std::string fits = inspect("label_data.json");
  CHECK_THAT(fits, Catch::Contains("512x288"));
  CHECK_THAT(fits, !Catch::Contains("another size"));
  // The label's first point is drawn where its coordinates are, in the 512x288 frame.
  const auto label = data::load_label_file(dir.path() / "label_data.json").labels.at(0);
  const cv::Mat overlay = data::read_image(dir.path() / "overlays/overlay_000.png");
  REQUIRE(overlay.size() == cv::Size(512, 288));
  for (size_t k = 0; k < label.h_samples.size(); ++k)
    if (label.lanes[0][k] >= 0) {
      CHECK(overlay.at<cv::Vec3b>(label.h_samples[k], label.lanes[0][k]) == cv::Vec3b(0, 0, 255));
      break;
    }
  const std::string other = inspect("labels_1280x720.json");
  CHECK_THAT(other, Catch::Contains("points down to row 710 but the frame is 512x288: it was made for frames of another size"));
}
