#pragma once
// Image files of the trainer without OpenCV's imgcodecs (whose shared-library closure is
// ~170 MiB: GDAL, OpenEXR, ...): JPEG through libjpeg-turbo's TurboJPEG API, PNG through
// libpng. Decoded images are 8-bit BGR (CV_8UC3) or grayscale (CV_8UC1), pixel for pixel what
// cv::imdecode gives for IMREAD_COLOR / IMREAD_GRAYSCALE and IMREAD_REDUCED_* (same
// libjpeg-turbo, same DCT method, same upsampling, same libpng transforms); encoded files are
// what cv::imwrite writes with its defaults (JPEG: 4:2:0, accurate DCT; PNG: zlib level 1, RLE,
// SUB filter). EXIF orientation is not applied (cv::imread does; camera frames carry none).
// Every failure throws lane::Error (ImageError when decoding) naming the file and the problem;
// malformed input never crashes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "common/error.h"

namespace lane::data {

// An image that cannot be read or decoded. what(): "cannot decode '<file>': <problem>";
// problem(): the problem alone, for messages that already name the file.
class ImageError : public Error {
 public:
  ImageError(const std::string& message, std::string problem) : Error(message), problem_(std::move(problem)) {}
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
};

enum class ImageColor { kBgr, kGray };

struct DecodeOptions {
  ImageColor color = ImageColor::kBgr;
  // 1, 2, 4 or 8: decode at 1/reduction of the size (rounded up). JPEG scales in the DCT
  // domain (an area average, and much cheaper than a full decode); PNG is decoded in full and
  // shrunk with cv::INTER_AREA.
  int reduction = 1;
};

// Decodes a JPEG or PNG (recognised by its signature) held in memory. `name` (a path) is
// used only in error messages.
cv::Mat decode_image(const uint8_t* data, size_t size, std::string_view name, const DecodeOptions& options = {});
inline cv::Mat decode_image(const std::vector<uint8_t>& bytes, std::string_view name,
                            const DecodeOptions& options = {}) {
  return decode_image(bytes.data(), bytes.size(), name, options);
}

// Reads and decodes an image file (ImageError also when the file cannot be read).
cv::Mat read_image(const std::filesystem::path& path, const DecodeOptions& options = {});

// The reduction (1, 2, 4 or 8) for an image of `full` size, asked once its header is read and
// before it is decoded: a caller that needs the full size keeps it from here.
using ReductionFor = std::function<int(cv::Size full)>;
cv::Mat decode_image(const uint8_t* data, size_t size, std::string_view name, ImageColor color,
                     const ReductionFor& reduction_for);
cv::Mat read_image(const std::filesystem::path& path, ImageColor color, const ReductionFor& reduction_for);

// The size of a JPEG of `full` size decoded at 1/reduction (each side rounded up).
cv::Size reduced_size(cv::Size full, int reduction);

// CV_8UC3 (BGR) or CV_8UC1 images. quality: 1..100.
std::vector<uint8_t> encode_png(const cv::Mat& image);
std::vector<uint8_t> encode_jpeg(const cv::Mat& image, int quality);

// Encode and write (not atomically: a plain create-or-truncate, as cv::imwrite did).
void write_png(const std::filesystem::path& path, const cv::Mat& image);
void write_jpeg(const std::filesystem::path& path, const cv::Mat& image, int quality);

}  // namespace lane::data
