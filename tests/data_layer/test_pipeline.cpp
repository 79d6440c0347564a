// The sample pipeline: decode geometry, normalisation, augmentation consistency, determinism
// across worker counts, DistributedSampler sharding, corrupt-JPEG skipping, bounded queue.
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "common/sha256.h"
#include "data_test_util.h"
#include "test_paths.h"
#include "train/data/frame_transform.h"
#include "train/data/image_codec.h"
#include "train/data/lane_masks.h"
#include "train/data/pipeline.h"
#include "train/data/shard_sampler.h"

using namespace lane;

namespace {

// A small synthetic set shared by the cases of this file (rendered once per process).
const std::filesystem::path& synth_set() {
  static test::TempDir dir("pipeline");
  static bool made = false;
  if (!made) {
    test::make_synth_set(dir.path(), 12, 11);
    made = true;
  }
  return dir.path();
}

data::PipelineOptions small_options(const std::filesystem::path& root) {
  data::PipelineOptions o;
  o.data_dir = root;
  o.label_files = {"label_data_train.json"};
  o.input_height = 184;  // half of 368x640 keeps the tests quick
  o.input_width = 320;
  o.seed = 5;
  return o;
}

// One fingerprint per sample: dataset index + hashes of image floats and mask bytes.
std::vector<std::string> run_epoch(data::SamplePipeline& p, int epoch, size_t skip = 0) {
  p.start_epoch(epoch, skip);
  std::vector<std::string> out;
  while (auto s = p.next()) {
    const std::string img(reinterpret_cast<const char*>(s->image.data()), s->image.size() * sizeof(float));
    const std::string mask(reinterpret_cast<const char*>(s->mask.data), s->mask.total());
    out.push_back(std::to_string(s->index) + ":" + sha256_hex(img) + ":" + sha256_hex(mask));
  }
  return out;
}

}  // namespace

TEST_CASE("decode reduction picks the largest JPEG scale that keeps the input size", "[data_layer][fast]") {
  auto reduction = [](int h, int w, int crop) {
    data::FrameGeometry g;
    g.input = cv::Size(w, h);
    g.crop_top = crop;
    return data::decode_reduction(g);
  };
  CHECK(reduction(368, 640, 0) == 2);    // 360x640 decoded, 2% upscale
  CHECK(reduction(288, 512, 0) == 2);
  CHECK(reduction(176, 320, 0) == 4);
  CHECK(reduction(368, 640, 160) == 1);  // 560 rows left: 280 at 1/2 is too few
  CHECK(reduction(720, 1280, 0) == 1);
  CHECK_THROWS_AS(reduction(370, 640, 0), UsageError);   // not a multiple of 8
  CHECK_THROWS_AS(reduction(368, 640, 720), UsageError);
}

TEST_CASE("normalisation maps RGB bytes to ImageNet-normalised CHW floats", "[data_layer][fast]") {
  cv::Mat bgr(2, 3, CV_8UC3, cv::Scalar(0, 128, 255));  // B=0, G=128, R=255
  std::vector<float> out(3 * 2 * 3);
  data::normalize_to_chw(bgr, out.data());
  CHECK(out[0] == Approx((1.0 - 0.485) / 0.229).epsilon(1e-5));          // R plane
  CHECK(out[6] == Approx((128 / 255.0 - 0.456) / 0.224).epsilon(1e-5));  // G plane
  CHECK(out[17] == Approx((0 - 0.406) / 0.225).epsilon(1e-5));           // B plane, last pixel
  data::normalize_to_chw(bgr, out.data(), 0.5, 10.0);                      // jitter, clamped
  CHECK(out[6] == Approx(((128 * 0.5 + 10) / 255.0 - 0.456) / 0.224).epsilon(1e-5));
  data::normalize_to_chw(bgr, out.data(), 2.0, 0.0);
  CHECK(out[0] == Approx((1.0 - 0.485) / 0.229).epsilon(1e-5));           // 510 clamps to 255
}

TEST_CASE("augmentation moves image and mask together and is seeded", "[data_layer][fast]") {
  const auto a = data::draw_augment_params(42), b = data::draw_augment_params(42), c = data::draw_augment_params(43);
  CHECK(a.angle_deg == b.angle_deg);
  CHECK(a.contrast == b.contrast);
  CHECK(a.angle_deg != c.angle_deg);
  CHECK(std::abs(a.angle_deg) <= 2.0);
  // A 720x1280 mask and a half-scale image that is white exactly where the mask is set: after
  // the crop + resize + 2 degree rotation warp the stripe still coincides in both.
  cv::Mat full_mask = cv::Mat::zeros(720, 1280, CV_8UC1);
  cv::line(full_mask, cv::Point(300, 200), cv::Point(700, 719), cv::Scalar(3), 15);
  cv::Mat half_mask;
  cv::resize(full_mask, half_mask, cv::Size(640, 360), 0, 0, cv::INTER_NEAREST_EXACT);
  cv::Mat frame(360, 640, CV_8UC3, cv::Scalar(40, 40, 40));
  frame.setTo(cv::Scalar(250, 250, 250), half_mask > 0);
  data::FrameGeometry g;
  g.input = cv::Size(320, 184);
  g.crop_top = 160;
  cv::Mat image, mask;
  data::warp_to_input(frame, full_mask, g, 2.0, &image, &mask);
  REQUIRE(image.size() == g.input);
  REQUIRE(mask.size() == g.input);
  cv::Mat grey;
  cv::extractChannel(image, grey, 0);
  const int on_mask = cv::countNonZero(mask > 0);
  const int bright_on_mask = cv::countNonZero((mask > 0) & (grey > 200));
  CHECK(on_mask > 500);
  CHECK(double(bright_on_mask) / on_mask > 0.9);
  CHECK(cv::countNonZero(mask == 3) == on_mask);  // nearest neighbour: no new class values
  // Angle 0 is the plain crop + resize.
  cv::Mat straight_image, straight_mask;
  data::warp_to_input(frame, full_mask, g, 0.0, &straight_image, &straight_mask);
  const cv::Mat resized_mask = data::crop_and_resize(full_mask, g, cv::INTER_NEAREST_EXACT);
  CHECK(size_t(cv::countNonZero(straight_mask != resized_mask)) < resized_mask.total() / 100);
  cv::Mat diff;
  cv::absdiff(straight_image, data::crop_and_resize(frame, g, cv::INTER_LINEAR), diff);
  CHECK(cv::mean(diff)[0] < 3.0);
}

TEST_CASE("shards are disjoint, complete and padded like DistributedSampler", "[data_layer][fast]") {
  for (size_t n : {10u, 12u, 1u}) {
    data::ShardSpec spec{n, true, 3, 0, 3};
    std::multiset<size_t> all;
    for (int r = 0; r < 3; ++r) {
      spec.rank = r;
      const auto idx = data::shard_indices(spec, 4);
      CHECK(idx.size() == (n + 2) / 3);
      all.insert(idx.begin(), idx.end());
    }
    CHECK(all.size() == 3 * ((n + 2) / 3));  // padded to a multiple of the world size
    for (size_t i = 0; i < n; ++i) CHECK(all.count(i) >= 1);       // complete
    CHECK(all.size() - std::set<size_t>(all.begin(), all.end()).size() == all.size() - n);  // only padding repeats
  }
  data::ShardSpec spec{50, true, 3, 0, 1};
  CHECK(data::shard_indices(spec, 0) == data::shard_indices(spec, 0));
  CHECK(data::shard_indices(spec, 0) != data::shard_indices(spec, 1));  // reshuffled per epoch
  spec.seed = 4;
  CHECK(data::shard_indices(spec, 0) != data::shard_indices(data::ShardSpec{50, true, 3, 0, 1}, 0));
  spec.shuffle = false;
  CHECK(data::shard_indices(spec, 7)[5] == 5);
  CHECK_THROWS_AS(data::shard_indices(data::ShardSpec{5, true, 0, 2, 2}, 0), UsageError);
}

TEST_CASE("the pipeline yields the same samples in the same order for any worker count", "[data_layer][fast]") {
  auto o = small_options(synth_set());
  o.augment = true;
  data::SamplePipeline inline_pipe(o);
  const auto reference = run_epoch(inline_pipe, 1);
  REQUIRE(reference.size() == 12);
  for (int workers : {1, 2, 3}) {
    INFO("workers " << workers);
    o.use_workers = true;
    o.num_workers = workers;
    o.queue_capacity = 4;
    data::SamplePipeline p(o);
    CHECK(run_epoch(p, 1) == reference);
    CHECK(run_epoch(p, 2) != reference);  // a new epoch reshuffles and re-augments
  }
  // Resume: skipping k samples gives the tail of the same order.
  const auto tail = run_epoch(inline_pipe, 1, 7);
  CHECK(tail == std::vector<std::string>(reference.begin() + 7, reference.end()));
}

TEST_CASE("ranks of the pipeline together cover the data set once per epoch", "[data_layer][fast]") {
  auto o = small_options(synth_set());
  o.world_size = 4;  // 12 samples: 3 per rank, no padding
  std::multiset<size_t> seen;
  for (int r = 0; r < 4; ++r) {
    o.rank = r;
    data::SamplePipeline p(o);
    CHECK(p.shard_size() == 3);
    p.start_epoch(0);
    while (auto s = p.next()) seen.insert(s->index);
  }
  CHECK(seen.size() == 12);
  CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == 12);
}

TEST_CASE("samples carry targets at the input size that match the labels", "[data_layer][fast]") {
  auto o = small_options(synth_set());
  o.shuffle = false;
  data::SamplePipeline p(o);
  p.start_epoch(0);
  auto s = p.next();
  REQUIRE(s);
  CHECK(s->index == 0);
  CHECK(s->image.size() == size_t(3 * 184 * 320));
  CHECK(s->mask.rows == 184);
  CHECK(s->mask.cols == 320);
  CHECK(s->exist == data::lane_existence(p.labels()[0], 6));
  for (int k = 0; k < 6; ++k) CHECK((cv::countNonZero(s->mask == k + 1) > 0) == (s->exist[size_t(k)] == 1));
}

TEST_CASE("corrupt and truncated JPEGs are reported and skipped without ending the epoch", "[data_layer][fast]") {
  test::TempDir dir("corrupt");
  test::make_synth_set(dir.path(), 8, 3);
  auto o = small_options(dir.path());
  const auto labels = data::load_label_file(dir.path() / "label_data_train.json").labels;
  const auto truncated = dir.path() / labels[2].raw_file;
  const std::string bytes = test::slurp(truncated);
  test::spit(truncated, bytes.substr(0, bytes.size() / 2));
  test::spit(dir.path() / labels[5].raw_file, "this is not a jpeg");
  for (bool workers : {false, true}) {
    o.use_workers = workers;
    o.num_workers = 2;
    data::SamplePipeline p(o);
    p.start_epoch(0);
    std::set<size_t> seen;
    while (auto s = p.next()) seen.insert(s->index);
    CHECK(seen.size() == 6);
    CHECK(seen.count(2) == 0);
    CHECK(seen.count(5) == 0);
    CHECK(p.skipped_images() == 2);
  }
}

TEST_CASE("workers never run further ahead than the queue capacity", "[data_layer][fast]") {
  auto o = small_options(synth_set());
  o.use_workers = true;
  o.num_workers = 3;
  o.queue_capacity = 3;
  data::SamplePipeline p(o);
  p.start_epoch(0);
  size_t n = 0;
  while (auto s = p.next()) {
    ++n;
    std::this_thread::sleep_for(std::chrono::milliseconds(15));  // a slow consumer
  }
  CHECK(n == 12);
  CHECK(p.max_buffered() >= 2);  // the workers did run ahead
  CHECK(p.max_buffered() <= 3);
}

TEST_CASE("bad pipeline options are usage errors", "[data_layer][fast]") {
  auto o = small_options(synth_set());
  o.lane_slots = 5;
  CHECK_THROWS_AS(data::SamplePipeline(o), UsageError);
  o = small_options(synth_set());
  o.rank = 2;
  o.world_size = 2;
  CHECK_THROWS_AS(data::SamplePipeline(o), UsageError);
  o = small_options(synth_set());
  o.label_files = {"missing.json"};
  CHECK_THROWS_AS(data::SamplePipeline(o), Error);
}

TEST_CASE("real TuSimple frames load through the pipeline", "[data_layer][fast]") {
  data::PipelineOptions o;
  o.data_dir = test::tusimple_dir();
  o.label_files = {"label_data_0601_first6.json"};
  data::SamplePipeline p(o);
  p.start_epoch(0);
  size_t n = 0;
  while (auto s = p.next()) {
    ++n;
    CHECK(s->mask.rows == 368);
    CHECK(s->mask.cols == 640);
    CHECK(cv::countNonZero(s->mask) > 1000);
  }
  CHECK(n == 6);
  CHECK(p.skipped_images() == 0);
}

TEST_CASE("frames of another size are decoded and cropped for their own size", "[data_layer][fast]") {
  data::FrameGeometry g;  // 368x640 input, crop_top in rows of a 720-row frame
  g.crop_top = 160;
  CHECK(data::decode_reduction(g, cv::Size(1280, 720)) == 1);  // 560 rows left
  g.crop_top = 0;
  CHECK(data::decode_reduction(g, cv::Size(1280, 720)) == 2);
  CHECK(data::decode_reduction(g, cv::Size(512, 288)) == 1);   // never shrunk below the input
  CHECK(data::decode_reduction(g, cv::Size(2560, 1440)) == 4);
  g.crop_top = 160;
  CHECK(data::crop_rows(g, 720) == 160);
  CHECK(data::crop_rows(g, 288) == 64);
  CHECK(data::crop_rows(g, 1080) == 240);
}

namespace {

// The 512x288 sample (real 0313 frames, labels scaled by 0.4) and the same frames brought back
// to 1280x720 with the original 1280x720 label lines: one scene in two pixel grids.
struct TwoScales {
  test::TempDir full{"full-scale"};
  std::filesystem::path small = test::tusimple_dir() / "tusimple_sample_512x288";
  TwoScales() {
    const auto labels = data::load_label_file(small / "label_data.json").labels;
    for (const auto& label : labels) {
      const cv::Mat frame = data::read_image(small / label.raw_file);
      cv::Mat up;
      cv::resize(frame, up, cv::Size(1280, 720), 0, 0, cv::INTER_LINEAR);
      std::filesystem::create_directories((full.path() / label.raw_file).parent_path());
      data::write_jpeg(full.path() / label.raw_file, up, 95);
    }
    std::filesystem::copy_file(test::tusimple_dir() / "label_data_0313_sample10_1280x720.json",
                               full.path() / "label_data.json");
  }
};

data::PipelineOptions sample_options(const std::filesystem::path& root) {
  data::PipelineOptions o;
  o.data_dir = root;
  o.label_files = {"label_data.json"};
  o.shuffle = false;
  o.crop_top = 160;
  return o;
}

}  // namespace

TEST_CASE("labels of down-scaled frames are drawn in the frame's own pixels", "[data_layer][fast]") {
  TwoScales sets;
  data::SamplePipeline small(sample_options(sets.small)), full(sample_options(sets.full.path()));
  small.start_epoch(0);
  full.start_epoch(0);
  size_t n = 0;
  while (auto s = small.next()) {
    auto f = full.next();
    REQUIRE(f);
    ++n;
    CHECK(s->frame == cv::Size(512, 288));
    CHECK(f->frame == cv::Size(1280, 720));
    CHECK(s->exist == f->exist);
    // The same lanes at the same places of the network input: the two label sets differ only
    // by rounding (x * 0.4), so nearly every lane pixel of one is a lane pixel of the other.
    const int lane_small = cv::countNonZero(s->mask), lane_full = cv::countNonZero(f->mask);
    const int same_slot = cv::countNonZero((s->mask == f->mask) & (s->mask > 0));
    INFO(n << ": " << lane_small << " and " << lane_full << " lane pixels, " << same_slot << " shared");
    CHECK(lane_small > 2000);
    CHECK(same_slot > 0.85 * std::max(lane_small, lane_full));
  }
  CHECK(n == 10);
  CHECK_FALSE(full.next());
}

TEST_CASE("labels made for larger frames stop the pipeline with the fix", "[data_layer][fast]") {
  test::TempDir root("mismatch");
  test::make_set_with_larger_labels(root.path());
  for (bool workers : {false, true}) {
    auto o = sample_options(root.path());
    o.use_workers = workers;
    o.num_workers = 3;
    data::SamplePipeline p(o);
    p.start_epoch(0);
    try {
      p.next();
      FAIL("no error for 1280x720 labels over 512x288 frames");
    } catch (const data::LabelFrameMismatch& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Catch::Contains("down to row 710 but the frame is 512x288"));
      CHECK_THAT(what, Catch::Contains("scale them to these frames"));
      CHECK_THAT(what, Catch::Contains("clips/0313-"));
    }
  }
  // One frame loaded alone says the same.
  const auto labels = data::load_label_file(root.path() / "label_data.json").labels;
  std::string error;
  CHECK_THROWS_AS(data::load_sample(sample_options(root.path()), labels[0], 0, &error), data::LabelFrameMismatch);
}

TEST_CASE("a label fits its frame when its points do: rows without a point do not count", "[data_layer][fast]") {
  data::LaneLabel label;
  label.raw_file = "clips/a/20.jpg";
  label.h_samples = {200, 240, 280, 320, 710};
  label.lanes = {{100, 110, 120, data::kNoPoint, data::kNoPoint}, {300, 290, data::kNoPoint, data::kNoPoint, -2}};
  CHECK(data::label_outside_frame(label, cv::Size(512, 288)).empty());
  label.lanes[1][3] = 280;  // a point on row 320, below the 288-row frame
  CHECK(data::label_outside_frame(label, cv::Size(512, 288)) == "points down to row 320 but the frame is 512x288");
  CHECK(data::label_outside_frame(label, cv::Size(1280, 720)).empty());
  label.lanes = {{data::kNoPoint, data::kNoPoint, data::kNoPoint, data::kNoPoint, data::kNoPoint}};
  CHECK(data::label_outside_frame(label, cv::Size(8, 8)).empty());  // nothing to draw
}
