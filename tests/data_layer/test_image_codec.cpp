// The trainer's image codec (TurboJPEG + libpng, no OpenCV imgcodecs): round trips, scaled
// decodes, and malformed input reported as lane::Error naming the file and the problem.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "data_test_util.h"
#include "train/data/image_codec.h"

using namespace lane;

namespace {

const std::filesystem::path kFrame =
    std::filesystem::path(LANE_TEST_DATA_DIR) / "tusimple/clips/0601/1494453497604532231/20.jpg";

cv::Mat noise(int rows, int cols, int type, uint64_t seed) {
  cv::Mat m(rows, cols, type);
  cv::theRNG().state = seed;
  cv::randu(m, 0, 256);
  return m;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// The message of the lane::Error that decoding `bytes` throws ("" when it decodes).
std::string decode_error(const std::vector<uint8_t>& bytes, const std::string& name = "frame.jpg") {
  try {
    (void)data::decode_image(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("PNG round trips are lossless for BGR and grey images", "[data_layer][fast]") {
  test::TempDir dir("codec-png");
  const cv::Mat bgr = noise(37, 53, CV_8UC3, 1), grey = noise(41, 29, CV_8UC1, 2);
  CHECK(test::identical(data::decode_image(data::encode_png(bgr), "bgr.png"), bgr));
  CHECK(test::identical(data::decode_image(data::encode_png(grey), "grey.png", {data::ImageColor::kGray}), grey));
  data::write_png(dir.path() / "bgr.png", bgr);
  data::write_png(dir.path() / "grey.png", grey);
  CHECK(test::identical(data::read_image(dir.path() / "bgr.png"), bgr));
  CHECK(test::identical(data::read_image(dir.path() / "grey.png", {data::ImageColor::kGray}), grey));
  // Colour requests of a grey PNG replicate the channel, as cv::imread does.
  cv::Mat replicated;
  cv::cvtColor(grey, replicated, cv::COLOR_GRAY2BGR);
  CHECK(test::identical(data::read_image(dir.path() / "grey.png"), replicated));
  // Channel order: a pure red BGR pixel stays red.
  cv::Mat red(1, 1, CV_8UC3, cv::Scalar(0, 0, 255));
  CHECK(data::decode_image(data::encode_png(red), "red.png").at<cv::Vec3b>(0, 0) == cv::Vec3b(0, 0, 255));
}

TEST_CASE("JPEG encode then decode keeps the image and its channel order", "[data_layer][fast]") {
  test::TempDir dir("codec-jpeg");
  cv::Mat bgr(64, 96, CV_8UC3, cv::Scalar(30, 90, 220));  // smooth: JPEG keeps it almost exactly
  cv::rectangle(bgr, cv::Rect(16, 16, 32, 32), cv::Scalar(200, 40, 10), cv::FILLED);
  data::write_jpeg(dir.path() / "a.jpg", bgr, 95);
  const cv::Mat back = data::read_image(dir.path() / "a.jpg");
  REQUIRE(back.size() == bgr.size());
  REQUIRE(back.type() == CV_8UC3);
  CHECK(cv::norm(back, bgr, cv::NORM_L1) / double(bgr.total() * 3) < 3.0);
  const cv::Mat grey = data::read_image(dir.path() / "a.jpg", {data::ImageColor::kGray});
  CHECK(grey.type() == CV_8UC1);
  CHECK(grey.size() == bgr.size());
  CHECK_THROWS_AS(data::encode_jpeg(bgr, 0), UsageError);
  CHECK_THROWS_AS(data::encode_png(cv::Mat(4, 4, CV_32FC1)), Error);
}

TEST_CASE("scaled JPEG decodes have the sizes of libjpeg's DCT scaling", "[data_layer][fast]") {
  for (int r : {1, 2, 4, 8}) {
    const cv::Mat m = data::read_image(kFrame, {data::ImageColor::kBgr, r});
    CHECK(m.cols == 1280 / r);
    CHECK(m.rows == 720 / r);
    CHECK(m.type() == CV_8UC3);
  }
  CHECK(data::reduced_size({1281, 721}, 8) == cv::Size(161, 91));  // rounded up, like libjpeg
  const cv::Mat odd = noise(45, 77, CV_8UC3, 3);
  const auto jpeg = data::encode_jpeg(odd, 90);
  CHECK(data::decode_image(jpeg, "odd.jpg", {data::ImageColor::kBgr, 4}).size() == cv::Size(20, 12));
  CHECK(data::decode_image(data::encode_png(odd), "odd.png", {data::ImageColor::kBgr, 2}).size() == cv::Size(39, 23));
  CHECK_THROWS_WITH(data::decode_image(jpeg, "odd.jpg", {data::ImageColor::kBgr, 3}),
                    Catch::Contains("reduction 3 is not 1, 2, 4 or 8"));
}

TEST_CASE("malformed images are lane::Errors naming the file and the problem", "[data_layer][fast]") {
  const std::string frame = test::slurp(kFrame);
  REQUIRE(frame.size() > 10000);
  CHECK_THAT(decode_error({}), Catch::Contains("'frame.jpg'") && Catch::Contains("empty"));
  CHECK_THAT(decode_error(bytes_of("this is not an image")), Catch::Contains("neither a JPEG nor a PNG"));
  CHECK_THAT(decode_error(bytes_of(frame.substr(0, frame.size() / 2))), Catch::Contains("truncated JPEG"));
  CHECK_THAT(decode_error(bytes_of(frame.substr(0, 3))), Catch::Contains("truncated JPEG"));
  std::string header = frame;
  for (size_t i = 20; i < 200; ++i) header[i] = char(0xAB);
  CHECK_THAT(decode_error(bytes_of(header)), Catch::Contains("corrupt JPEG"));
  // A JPEG with only its start and end markers.
  CHECK_THAT(decode_error({0xFF, 0xD8, 0xFF, 0xD9}), Catch::Contains("corrupt JPEG"));

  const auto png = data::encode_png(noise(50, 60, CV_8UC3, 4));
  CHECK_THAT(decode_error(std::vector<uint8_t>(png.begin(), png.begin() + long(png.size() / 2)), "m.png"),
             Catch::Contains("'m.png'") && Catch::Contains("truncated PNG"));
  CHECK_THAT(decode_error(std::vector<uint8_t>(png.begin(), png.begin() + 8), "m.png"), Catch::Contains("PNG"));
  auto bad_crc = png;
  bad_crc[20] ^= 0xFF;  // inside IHDR
  CHECK_THAT(decode_error(bad_crc, "m.png"), Catch::Contains("corrupt PNG") && Catch::Contains("CRC"));

  test::TempDir dir("codec-bad");
  test::spit(dir.path() / "empty.jpg", "");
  CHECK_THROWS_WITH(data::read_image(dir.path() / "empty.jpg"), Catch::Contains("empty.jpg") && Catch::Contains("empty"));
  CHECK_THROWS_WITH(data::read_image(dir.path() / "missing.jpg"),
                    Catch::Contains("missing.jpg") && Catch::Contains("cannot open"));
  CHECK_THROWS_AS(data::read_image(dir.path() / "missing.jpg"), data::ImageError);
  CHECK_THROWS_WITH(data::write_png(dir.path() / "no/such/dir/x.png", noise(2, 2, CV_8UC1, 5)),
                    Catch::Contains("cannot write") && Catch::Contains("x.png"));
}
