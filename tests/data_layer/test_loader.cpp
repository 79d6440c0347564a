// The libtorch loader: batch shapes and types, targets, sharding, resume, preprocess_frame.
#include <set>

#include "catch_torch.h"

#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "data_test_util.h"
#include "test_paths.h"
#include "train/data/image_codec.h"
#include "train/data/lane_masks.h"
#include "train/data/tensors/loader.h"

using namespace lane;

namespace {

const std::filesystem::path& synth_set() {
  static test::TempDir dir("loader");
  static bool made = false;
  if (!made) {
    test::make_synth_set(dir.path(), 10, 21);
    made = true;
  }
  return dir.path();
}

data::LoaderOptions options() {
  data::LoaderOptions o;
  o.pipeline.data_dir = synth_set();
  o.pipeline.label_files = {"label_data_train.json"};
  o.pipeline.input_height = 184;
  o.pipeline.input_width = 320;
  o.batch_size = 4;
  o.pipeline.seed = 9;
  return o;
}

}  // namespace

TEST_CASE("batches have the documented shapes, types and targets", "[data_layer][slow]") {
  auto o = options();
  data::TusimpleLoader loader(o);
  CHECK(loader.dataset_size() == 10);
  CHECK(loader.shard_size() == 10);
  CHECK(loader.batches_per_epoch() == 2);  // drop_last
  loader.start_epoch(0);
  size_t batches = 0;
  while (auto b = loader.next()) {
    ++batches;
    CHECK(b->images.sizes() == torch::IntArrayRef({4, 3, 184, 320}));
    CHECK(b->images.dtype() == torch::kFloat32);
    CHECK(b->seg.sizes() == torch::IntArrayRef({4, 184, 320}));
    CHECK(b->seg.dtype() == torch::kInt64);
    CHECK(b->exist.sizes() == torch::IntArrayRef({4, 6}));
    CHECK(b->seg.min().item<int64_t>() == 0);
    CHECK(b->seg.max().item<int64_t>() <= 6);
    REQUIRE(b->labels.size() == 4);
    REQUIRE(b->frames.size() == 4);
    for (int64_t i = 0; i < 4; ++i) {
      CHECK(b->frames[size_t(i)] == cv::Size(1280, 720));  // synth frames: validation scores in their pixels
      const auto exist = data::lane_existence(b->labels[size_t(i)], 6);
      for (int64_t k = 0; k < 6; ++k) {
        CHECK(b->exist[i][k].item<float>() == float(exist[size_t(k)]));
        CHECK((b->seg[i].eq(k + 1).any().item<bool>()) == (exist[size_t(k)] == 1));
      }
    }
    // Normalised: roughly zero-centred, not raw bytes.
    CHECK(std::abs(b->images.mean().item<float>()) < 2.0f);
  }
  CHECK(batches == 2);
}

TEST_CASE("no drop_last keeps the short last batch, and 4 slots give 5 classes", "[data_layer][slow]") {
  auto o = options();
  o.drop_last = false;
  o.pipeline.lane_slots = 4;
  data::TusimpleLoader loader(o);
  CHECK(loader.batches_per_epoch() == 3);
  loader.start_epoch(0);
  std::vector<int64_t> sizes;
  while (auto b = loader.next()) {
    sizes.push_back(b->images.size(0));
    CHECK(b->exist.size(1) == 4);
    CHECK(b->seg.max().item<int64_t>() <= 4);
  }
  CHECK(sizes == std::vector<int64_t>{4, 4, 2});
}

TEST_CASE("loader order is deterministic, worker-independent, sharded and resumable", "[data_layer][slow]") {
  auto raw_files = [](data::TusimpleLoader& l, int epoch, size_t skip) {
    l.start_epoch(epoch, skip);
    std::vector<std::string> out;
    while (auto b = l.next())
      for (const auto& lab : b->labels) out.push_back(lab.raw_file);
    return out;
  };
  auto o = options();
  o.pipeline.augment = true;
  data::TusimpleLoader a(o);
  o.pipeline.use_workers = true;
  o.pipeline.num_workers = 2;
  data::TusimpleLoader b(o);
  const auto order = raw_files(a, 3, 0);
  CHECK(order.size() == 8);
  CHECK(raw_files(b, 3, 0) == order);
  CHECK(raw_files(b, 3, 1) == std::vector<std::string>(order.begin() + 4, order.end()));
  a.start_epoch(3);
  b.start_epoch(3);
  auto ba = a.next(), bb = b.next();
  REQUIRE(ba);
  REQUIRE(bb);
  CHECK(torch::equal(ba->images, bb->images));
  CHECK(torch::equal(ba->seg, bb->seg));

  o.pipeline.world_size = 2;
  o.batch_size = 1;
  std::set<std::string> seen;
  for (int r = 0; r < 2; ++r) {
    o.pipeline.rank = r;
    data::TusimpleLoader l(o);
    CHECK(l.shard_size() == 5);
    for (const auto& f : raw_files(l, 0, 0)) CHECK(seen.insert(f).second);
  }
  CHECK(seen.size() == 10);
}

TEST_CASE("the batch thread hands out the batches the caller would pack itself", "[data_layer][slow]") {
  auto o = options();
  o.pipeline.augment = true;
  o.drop_last = false;
  o.batch_size = 3;  // 10 frames: 3, 3, 3, 1
  data::TusimpleLoader inline_packing(o);  // no workers: packed by the caller
  o.pipeline.use_workers = true;
  o.pipeline.num_workers = 2;
  o.batch_thread = false;
  data::TusimpleLoader caller_packs(o);
  o.batch_thread = true;
  data::TusimpleLoader batch_thread(o);
  auto epoch = [](data::TusimpleLoader& l, int e, size_t skip) {
    l.start_epoch(e, skip);
    std::vector<data::Batch> out;
    while (auto b = l.next()) out.push_back(std::move(*b));
    CHECK_FALSE(l.next());  // the end stays the end
    return out;
  };
  auto same = [](const std::vector<data::Batch>& a, const std::vector<data::Batch>& b) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      INFO("batch " << i);
      CHECK(torch::equal(a[i].images, b[i].images));
      CHECK(torch::equal(a[i].seg, b[i].seg));
      CHECK(torch::equal(a[i].exist, b[i].exist));
      REQUIRE(a[i].labels.size() == b[i].labels.size());
      for (size_t k = 0; k < a[i].labels.size(); ++k) CHECK(a[i].labels[k].raw_file == b[i].labels[k].raw_file);
    }
  };
  const auto reference = epoch(inline_packing, 2, 0);
  CHECK(reference.size() == 4);
  same(epoch(caller_packs, 2, 0), reference);
  same(epoch(batch_thread, 2, 0), reference);
  // Resuming after two batches, and an epoch restarted after one batch was taken.
  same(epoch(batch_thread, 2, 2), std::vector<data::Batch>(reference.begin() + 2, reference.end()));
  batch_thread.start_epoch(1);
  REQUIRE(batch_thread.next());
  same(epoch(batch_thread, 2, 0), reference);
  // Destroyed while the thread waits with a packed batch, and while it packs one.
  for (int taken : {0, 1}) {
    data::TusimpleLoader l(o);
    l.start_epoch(0);
    for (int i = 0; i < taken; ++i) REQUIRE(l.next());
  }
}

TEST_CASE("a failure on the batch thread reaches the caller with its message", "[data_layer][fast]") {
  test::TempDir root("loader-mismatch");
  test::make_set_with_larger_labels(root.path());
  data::LoaderOptions o;
  o.pipeline.data_dir = root.path();
  o.pipeline.label_files = {"label_data.json"};
  o.pipeline.crop_top = 160;
  o.pipeline.use_workers = true;
  o.pipeline.num_workers = 2;
  o.batch_size = 2;
  for (bool batch_thread : {false, true}) {
    INFO("batch thread " << batch_thread);
    o.batch_thread = batch_thread;
    data::TusimpleLoader loader(o);
    loader.start_epoch(0);
    for (int call = 0; call < 2; ++call) {  // and it stays failed
      try {
        loader.next();
        FAIL("no error for 1280x720 labels over 512x288 frames");
      } catch (const data::LabelFrameMismatch& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("down to row 710 but the frame is 512x288"));
      }
    }
  }
}

TEST_CASE("preprocess_frame gives a normalised [3,H,W] tensor for any frame size", "[data_layer][fast]") {
  const cv::Mat frame = data::read_image(test::tusimple_dir() / "unlabeled_frames/lanenet_tusimple_test_image_0.jpg");
  REQUIRE(!frame.empty());
  data::PreprocessOptions p;
  const auto t = data::preprocess_frame(frame, p);
  CHECK(t.sizes() == torch::IntArrayRef({3, 368, 640}));
  CHECK(t.dtype() == torch::kFloat32);
  CHECK(std::abs(t.mean().item<float>()) < 2.0f);
  cv::Mat small;
  cv::resize(frame, small, cv::Size(512, 288));
  p.crop_top = 160;
  CHECK(data::preprocess_frame(small, p).sizes() == torch::IntArrayRef({3, 368, 640}));
  p.input_height = 100;  // not a multiple of 8
  CHECK_THROWS_AS(data::preprocess_frame(frame, p), UsageError);
}

TEST_CASE("bad loader options are usage errors", "[data_layer][slow]") {
  auto o = options();
  o.batch_size = 0;
  CHECK_THROWS_AS(data::TusimpleLoader(o), UsageError);
  o = options();
  o.pipeline.lane_slots = 3;
  CHECK_THROWS_AS(data::TusimpleLoader(o), UsageError);
}
