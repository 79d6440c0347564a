#pragma once
// Image side of the training pipeline: JPEG decode at reduced resolution, crop of the top
// rows, resize to the network input, augmentation, and normalisation to CHW floats.
// See docs/data.md for the exact choices.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

namespace lane::data {

// ImageNet statistics on RGB in [0,1] (the HH / pytorch-auto-drive convention).
inline constexpr std::array<float, 3> kMeanRgb = {0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kStdRgb = {0.229f, 0.224f, 0.225f};

// Frames of any size are cropped in proportion: crop_top counts rows of a frame of `source`
// height (TuSimple's 1280x720), so a 360-row frame loses half as many rows.
struct FrameGeometry {
  cv::Size source{1280, 720};  // the frame crop_top is measured on
  int crop_top = 0;            // rows of the source frame dropped before resizing
  cv::Size input{640, 368};    // network input (width, height)
};

// Largest JPEG decode reduction (1, 2, 4 or 8) whose cropped output is still at least ~95% of
// the input size in both directions: decoding at 1/2 is ~3x cheaper than full size, and a
// 360->368-row upscale is harmless. Throws lane::UsageError for an impossible geometry.
int decode_reduction(const FrameGeometry& geometry);
// The same for a frame of `frame` size (crop_top scaled to its height).
int decode_reduction(const FrameGeometry& geometry, cv::Size frame);

// crop_top in rows of a frame `frame_height` rows high.
int crop_rows(const FrameGeometry& geometry, int frame_height);

// Reads and decodes a frame (JPEG; a PNG works too) at 1/reduction scale with image_codec.h
// (TurboJPEG scales in the DCT domain). Returns std::nullopt and sets `error` to the problem
// when the file is missing, truncated (no end-of-image marker) or does not decode.
std::optional<cv::Mat> decode_jpeg(const std::filesystem::path& path, int reduction, std::string* error);
// The same at the reduction decode_reduction(geometry, size) gives for the frame's own size,
// which is stored in `*frame`.
std::optional<cv::Mat> decode_frame(const std::filesystem::path& path, const FrameGeometry& geometry, cv::Size* frame,
                                    std::string* error);

// Drops the top `crop_top` source rows (scaled to the image's height) and resizes to `input`.
cv::Mat crop_and_resize(const cv::Mat& bgr, const FrameGeometry& geometry, int interpolation);

// Training augmentation, drawn deterministically from a 64-bit seed.
struct AugmentParams {
  double angle_deg = 0;   // rotation about the image centre, uniform in [-2, 2]
  double contrast = 1;    // gain, uniform in [0.8, 1.2]
  double brightness = 0;  // offset in 0..255 units, uniform in [-20, 20]
};
AugmentParams draw_augment_params(uint64_t seed);

// Crop + resize + rotation by `angle_deg` about the output centre in one warp each: the
// image (any decoded scale of the frame; bilinear, edge replicated) and the mask at the frame's
// own size (nearest, border 0) get the same geometric transform. angle 0 equals crop_and_resize.
void warp_to_input(const cv::Mat& bgr, const cv::Mat& full_mask, const FrameGeometry& geometry, double angle_deg,
                   cv::Mat* image, cv::Mat* mask);

// BGR uint8 HxW -> RGB float CHW, first jittered (clamp(byte * gain + bias) to 0..255), then
// normalised with kMeanRgb / kStdRgb, written to `out` (3*H*W floats).
void normalize_to_chw(const cv::Mat& bgr, float* out, double gain = 1.0, double bias = 0.0);

// Deterministic, platform-independent mixing of seeds (splitmix64).
uint64_t mix_seed(uint64_t a, uint64_t b);

}  // namespace lane::data
