#include "train/data/frame_transform.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/data/image_codec.h"

namespace lane::data {
namespace {

constexpr double kMinScaleAfterReduction = 0.95;

// Uniform double in [lo, hi) from a splitmix64 stream: identical on every platform.
double uniform(uint64_t& state, double lo, double hi) {
  state = mix_seed(state, 0x9e3779b97f4a7c15ULL);
  return lo + (hi - lo) * double(state >> 11) * (1.0 / 9007199254740992.0);
}

std::optional<cv::Mat> read_or_error(const std::filesystem::path& path, const ReductionFor& reduction_for,
                                     std::string* error) {
  try {
    return read_image(path, ImageColor::kBgr, reduction_for);
  } catch (const ImageError& e) {
    *error = e.problem();
  } catch (const Error& e) {  // the file cannot be read
    *error = e.what();
  }
  return std::nullopt;
}

}  // namespace

uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int decode_reduction(const FrameGeometry& g) { return decode_reduction(g, g.source); }

int decode_reduction(const FrameGeometry& g, cv::Size frame) {
  if (g.input.width <= 0 || g.input.height <= 0 || g.input.width % 8 || g.input.height % 8)
    throw UsageError(fmt::format("input size {}x{} (HxW) must be positive multiples of 8",
                                 g.input.height, g.input.width));
  if (g.crop_top < 0 || g.crop_top >= g.source.height)
    throw UsageError(fmt::format("crop_top {} must be in [0, {})", g.crop_top, g.source.height));
  const int top = crop_rows(g, frame.height);
  for (int r : {8, 4, 2}) {
    const double h = double(frame.height - top) / r, w = double(frame.width) / r;
    if (h >= kMinScaleAfterReduction * g.input.height && w >= kMinScaleAfterReduction * g.input.width) return r;
  }
  return 1;
}

int crop_rows(const FrameGeometry& g, int frame_height) {
  return int(std::lround(double(g.crop_top) * frame_height / g.source.height));
}

std::optional<cv::Mat> decode_jpeg(const std::filesystem::path& path, int reduction, std::string* error) {
  return read_or_error(path, [reduction](cv::Size) { return reduction; }, error);
}

std::optional<cv::Mat> decode_frame(const std::filesystem::path& path, const FrameGeometry& geometry, cv::Size* frame,
                                    std::string* error) {
  auto reduction_for = [&](cv::Size full) {
    *frame = full;
    return decode_reduction(geometry, full);
  };
  return read_or_error(path, reduction_for, error);
}

cv::Mat crop_and_resize(const cv::Mat& bgr, const FrameGeometry& g, int interpolation) {
  const int top = crop_rows(g, bgr.rows);
  const cv::Mat roi = bgr.rowRange(std::min(top, bgr.rows - 1), bgr.rows);
  if (roi.size() == g.input) return roi.clone();
  cv::Mat out;
  cv::resize(roi, out, g.input, 0, 0, interpolation);
  return out;
}

AugmentParams draw_augment_params(uint64_t seed) {
  uint64_t state = seed;
  AugmentParams p;
  p.angle_deg = uniform(state, -2.0, 2.0);
  p.contrast = uniform(state, 0.8, 1.2);
  p.brightness = uniform(state, -20.0, 20.0);
  return p;
}

namespace {

// dst -> src map of "crop the top rows, resize to geometry.input, rotate by angle about the
// output centre", in cv::resize's half-pixel convention, for a source of `source_size`.
cv::Mat inverse_map(const FrameGeometry& g, cv::Size source_size, double angle_deg) {
  const double top = double(g.crop_top) * source_size.height / g.source.height;
  const double sx = double(source_size.width) / g.input.width;
  const double sy = (source_size.height - top) / g.input.height;
  const double a = angle_deg * M_PI / 180.0, c = std::cos(a), s = std::sin(a);
  const double cx = g.input.width / 2.0, cy = g.input.height / 2.0;
  // q = Rot(-a) (p - centre) + centre;  src = scale * (q + 0.5) - 0.5 (+ crop offset in y)
  const double q00 = c, q01 = s, q02 = cx - c * cx - s * cy;
  const double q10 = -s, q11 = c, q12 = cy + s * cx - c * cy;
  cv::Mat m = (cv::Mat_<double>(2, 3) << sx * q00, sx * q01, sx * (q02 + 0.5) - 0.5,
               sy * q10, sy * q11, sy * (q12 + 0.5) - 0.5 + top);
  return m;
}

}  // namespace

void warp_to_input(const cv::Mat& bgr, const cv::Mat& full_mask, const FrameGeometry& g, double angle_deg,
                   cv::Mat* image, cv::Mat* mask) {
  cv::warpAffine(bgr, *image, inverse_map(g, bgr.size(), angle_deg), g.input, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                 cv::BORDER_REPLICATE);
  cv::warpAffine(full_mask, *mask, inverse_map(g, full_mask.size(), angle_deg), g.input,
                 cv::INTER_NEAREST | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(0));
}

void normalize_to_chw(const cv::Mat& bgr, float* out, double gain, double bias) {
  CV_Assert(bgr.type() == CV_8UC3);
  const int h = bgr.rows, w = bgr.cols;
  const size_t plane = size_t(h) * w;
  // Photometric jitter and normalisation share one table: byte -> float per RGB channel.
  float table[3][256];
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 256; ++v) {
      const double jittered = std::clamp(v * gain + bias, 0.0, 255.0);
      table[c][v] = float((jittered / 255.0 - kMeanRgb[c]) / kStdRgb[c]);
    }
  for (int y = 0; y < h; ++y) {
    const uchar* row = bgr.ptr<uchar>(y);
    float* r = out + size_t(y) * w;
    float* g = r + plane;
    float* b = g + plane;
    for (int x = 0; x < w; ++x) {
      b[x] = table[2][row[3 * x + 0]];
      g[x] = table[1][row[3 * x + 1]];
      r[x] = table[0][row[3 * x + 2]];
    }
  }
}

}  // namespace lane::data
