// The trainer's codec against OpenCV's imgcodecs, which it replaces: the same pixels for every
// decode mode on real TuSimple frames, the same bytes for what it writes. Built only where
// OpenCV's imgcodecs is installed (it is not needed otherwise).
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data_test_util.h"
#include "train/data/image_codec.h"

using namespace lane;

namespace {

std::vector<std::filesystem::path> real_frames() {
  std::vector<std::filesystem::path> out;
  const auto root = std::filesystem::path(LANE_TEST_DATA_DIR) / "tusimple";
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().extension() == ".jpg") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("TurboJPEG decodes the frames exactly as cv::imdecode, at every scale, colour and grey", "[data_layer][fast]") {
  const auto frames = real_frames();
  REQUIRE(frames.size() >= 6);
  const int colour[] = {cv::IMREAD_COLOR, cv::IMREAD_REDUCED_COLOR_2, cv::IMREAD_REDUCED_COLOR_4,
                        cv::IMREAD_REDUCED_COLOR_8};
  const int grey[] = {cv::IMREAD_GRAYSCALE, cv::IMREAD_REDUCED_GRAYSCALE_2, cv::IMREAD_REDUCED_GRAYSCALE_4,
                      cv::IMREAD_REDUCED_GRAYSCALE_8};
  for (const auto& f : frames) {
    const std::string s = test::slurp(f);
    const std::vector<uint8_t> bytes(s.begin(), s.end());
    for (int k = 0; k < 4; ++k) {
      INFO(fmt::format("{} at 1/{}", f.string(), 1 << k));
      CHECK(test::identical(data::decode_image(bytes, f.string(), {data::ImageColor::kBgr, 1 << k}),
                      cv::imdecode(bytes, colour[k])));
      CHECK(test::identical(data::decode_image(bytes, f.string(), {data::ImageColor::kGray, 1 << k}),
                      cv::imdecode(bytes, grey[k])));
    }
  }
}

TEST_CASE("encoded JPEG and PNG files are byte for byte what cv::imencode writes", "[data_layer][fast]") {
  cv::Mat frame = cv::imread(real_frames().front().string(), cv::IMREAD_COLOR);
  REQUIRE(!frame.empty());
  cv::Mat grey;
  cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
  for (const cv::Mat* m : {&frame, &grey}) {
    std::vector<uint8_t> jpeg, png;
    cv::imencode(".jpg", *m, jpeg, {cv::IMWRITE_JPEG_QUALITY, 90});
    cv::imencode(".png", *m, png);
    CHECK(data::encode_jpeg(*m, 90) == jpeg);
    CHECK(data::encode_png(*m) == png);
    // And PNGs written by OpenCV decode to the same pixels, in both colour modes.
    CHECK(test::identical(data::decode_image(png, "cv.png"), cv::imdecode(png, cv::IMREAD_COLOR)));
    CHECK(test::identical(data::decode_image(png, "cv.png", {data::ImageColor::kGray}), cv::imdecode(png, cv::IMREAD_GRAYSCALE)));
  }
}
