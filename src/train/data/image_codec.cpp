#include "train/data/image_codec.h"

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>
#include <png.h>
#include <turbojpeg.h>
#include <zlib.h>


namespace lane::data {
namespace {

// Larger images are refused before any allocation (a 20-byte header can claim 4 Gpx).
constexpr uint64_t kMaxPixels = uint64_t(1) << 28;

[[noreturn]] void fail(std::string_view name, std::string problem) {
  throw ImageError(fmt::format("cannot decode '{}': {}", name, problem), problem);
}

void check_size(std::string_view name, uint64_t width, uint64_t height) {
  if (width == 0 || height == 0) fail(name, fmt::format("the image claims a size of {}x{}", width, height));
  if (width * height > kMaxPixels)
    fail(name, fmt::format("{}x{} is over the limit of {} pixels", width, height, kMaxPixels));
}

// ---- JPEG (TurboJPEG)

// One decompressor and one compressor per thread: a handle is not thread-safe, and creating
// one per image costs allocations the loader's workers would repeat for every frame. After a
// failure the handle is replaced: libjpeg-turbo 2.1 leaves a handle whose header read failed
// half-way in a state that rejects the next, valid, JPEG ("SOS before SOF").
struct TjHandle {
  explicit TjHandle(bool compress) : compress(compress) {}
  ~TjHandle() { reset(); }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
  tjhandle get() {
    if (!handle) handle = compress ? tjInitCompress() : tjInitDecompress();
    if (!handle) throw Error(fmt::format("cannot start the JPEG codec: {}", tjGetErrorStr2(nullptr)));
    return handle;
  }
  void reset() {
    if (handle) tjDestroy(handle);
    handle = nullptr;
  }
  const bool compress;
  tjhandle handle = nullptr;
};

TjHandle& decompressor() {
  thread_local TjHandle tj(false);
  return tj;
}

TjHandle& compressor() {
  thread_local TjHandle tj(true);
  return tj;
}

// Throws for a failed TurboJPEG call, after replacing the handle.
[[noreturn]] void jpeg_failed(TjHandle& tj, std::string_view name, std::string_view what) {
  const std::string message = tjGetErrorStr2(tj.handle);
  tj.reset();
  fail(name, fmt::format("{}: {}", what, message));
}

// A JPEG cut short loses its end-of-image marker; libjpeg would only warn and pad the image
// with grey, so a truncated frame is refused here. Encoders may append a few padding bytes.
bool has_end_marker(const uint8_t* data, size_t size) {
  if (size < 4) return false;
  const size_t first = size > 66 ? size - 66 : 2;
  for (size_t i = size - 2; i >= first; --i)
    if (data[i] == 0xFF && data[i + 1] == 0xD9) return true;
  return false;
}

cv::Mat decode_jpeg_bytes(const uint8_t* data, size_t size, std::string_view name, ImageColor color,
                          const ReductionFor& reduction_for) {
  if (!has_end_marker(data, size)) fail(name, "truncated JPEG (no end-of-image marker)");
  TjHandle& tj = decompressor();
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(tj.get(), data, static_cast<unsigned long>(size), &width, &height, &subsampling,
                          &colorspace))
    jpeg_failed(tj, name, "corrupt JPEG header");
  if (width <= 0 || height <= 0) {  // e.g. an abbreviated JPEG holding only tables
    tj.reset();
    fail(name, "corrupt JPEG: no image frame in the data");
  }
  check_size(name, uint64_t(width), uint64_t(height));
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) fail(name, "CMYK JPEGs are not supported");
  const cv::Size out = reduced_size({width, height}, reduction_for({width, height}));
  const bool gray = color == ImageColor::kGray;
  cv::Mat image(out, gray ? CV_8UC1 : CV_8UC3);
  // Accurate (islow) DCT and fancy upsampling: libjpeg's defaults, which cv::imdecode keeps.
  // A warning (e.g. extraneous bytes before a marker) still gives the whole image, as it does
  // through cv::imdecode; only fatal errors are refused.
  const int flags = TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS;
  if (tjDecompress2(tj.get(), data, static_cast<unsigned long>(size), image.data, out.width, int(image.step),
                    out.height, gray ? TJPF_GRAY : TJPF_BGR, flags) != 0) {
    if (tjGetErrorCode(tj.handle) != TJERR_WARNING) jpeg_failed(tj, name, "corrupt JPEG");
    tj.reset();
  }
  return image;
}

// ---- PNG (libpng). libpng reports errors by longjmp: the functions that call setjmp hold
// only plain locals, and every C++ object lives in their callers.

struct PngState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* in = nullptr;  // reading: the PNG bytes
  size_t in_size = 0, in_pos = 0;
  std::vector<uint8_t>* out = nullptr;  // writing: the PNG bytes so far
  char message[256] = "";
};

void png_on_error(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof s->message, "%s", message);
  png_longjmp(png, 1);
}

void png_on_warning(png_structp, png_const_charp) {}

void png_read_bytes(png_structp png, png_bytep dst, size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > s->in_size - s->in_pos) png_error(png, "truncated PNG (the data ends early)");
  std::memcpy(dst, s->in + s->in_pos, n);
  s->in_pos += n;
}

void png_write_bytes(png_structp png, png_bytep src, size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    s->out->insert(s->out->end(), src, src + n);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}

void png_flush(png_structp) {}

struct PngReader : PngState {
  PngReader() {
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, this, png_on_error, png_on_warning);
    if (png) info = png_create_info_struct(png);
    if (!png || !info) throw Error("cannot start the PNG decoder (out of memory)");
  }
  ~PngReader() { png_destroy_read_struct(&png, &info, nullptr); }
};

// Reads the header and asks for 8-bit BGR or grey rows with cv::imdecode's transforms.
bool png_start(PngReader& r, bool gray, png_uint_32* width, png_uint_32* height) {
  if (setjmp(png_jmpbuf(r.png))) return false;
  png_set_read_fn(r.png, &r, png_read_bytes);
  png_read_info(r.png, r.info);
  int depth = 0, type = 0;
  png_get_IHDR(r.png, r.info, width, height, &depth, &type, nullptr, nullptr, nullptr);
  if (depth == 16) png_set_strip_16(r.png);
  png_set_strip_alpha(r.png);
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r.png);
  if ((type & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(r.png);
  if ((type & PNG_COLOR_MASK_COLOR) && !gray)
    png_set_bgr(r.png);
  else if (!gray)
    png_set_gray_to_rgb(r.png);
  else
    png_set_rgb_to_gray(r.png, 1, 0.299, 0.587);
  png_set_interlace_handling(r.png);
  png_read_update_info(r.png, r.info);
  return true;
}

bool png_rows(PngReader& r, png_bytepp rows) {
  if (setjmp(png_jmpbuf(r.png))) return false;
  png_read_image(r.png, rows);
  png_read_end(r.png, nullptr);
  return true;
}

cv::Mat decode_png_bytes(const uint8_t* data, size_t size, std::string_view name, ImageColor color,
                         const ReductionFor& reduction_for) {
  PngReader r;
  r.in = data;
  r.in_size = size;
  png_uint_32 width = 0, height = 0;
  const bool gray = color == ImageColor::kGray;
  if (!png_start(r, gray, &width, &height)) fail(name, fmt::format("corrupt PNG: {}", r.message));
  check_size(name, width, height);
  cv::Mat image(int(height), int(width), gray ? CV_8UC1 : CV_8UC3);
  if (png_get_rowbytes(r.png, r.info) != image.cols * image.elemSize())
    fail(name, "unsupported PNG layout");
  std::vector<png_bytep> rows(height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.ptr<uint8_t>(int(y));
  if (!png_rows(r, rows.data())) fail(name, fmt::format("corrupt PNG: {}", r.message));
  const int reduction = reduction_for(image.size());
  const cv::Size out = reduced_size(image.size(), reduction);
  if (reduction == 1) return image;
  cv::Mat reduced;
  cv::resize(image, reduced, out, 0, 0, cv::INTER_AREA);
  return reduced;
}

struct PngWriter : PngState {
  PngWriter() {
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, this, png_on_error, png_on_warning);
    if (png) info = png_create_info_struct(png);
    if (!png || !info) throw Error("cannot start the PNG encoder (out of memory)");
  }
  ~PngWriter() { png_destroy_write_struct(&png, &info); }
};

// cv::imwrite's PNG defaults: SUB filter, zlib level 1, RLE strategy.
bool png_encode_rows(PngWriter& w, const cv::Mat& image) {
  if (setjmp(png_jmpbuf(w.png))) return false;
  png_set_write_fn(w.png, &w, png_write_bytes, png_flush);
  png_set_filter(w.png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_set_compression_level(w.png, Z_BEST_SPEED);
  png_set_compression_strategy(w.png, Z_RLE);
  png_set_IHDR(w.png, w.info, png_uint_32(image.cols), png_uint_32(image.rows), 8,
               image.channels() == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(w.png, w.info);
  png_set_bgr(w.png);
  for (int y = 0; y < image.rows; ++y) png_write_row(w.png, image.ptr<uint8_t>(y));
  png_write_end(w.png, w.info);
  return true;
}

void check_encodable(const cv::Mat& image, std::string_view format) {
  if (image.empty()) throw Error(fmt::format("cannot encode an empty image as {}", format));
  if (image.type() != CV_8UC3 && image.type() != CV_8UC1)
    throw Error(fmt::format("cannot encode a {}-channel image of depth {} as {}: 8-bit BGR or grey only",
                            image.channels(), image.depth(), format));
}

void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (out) out.close();
  if (!out) throw Error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
}

}  // namespace

cv::Size reduced_size(cv::Size full, int reduction) {
  if (reduction != 1 && reduction != 2 && reduction != 4 && reduction != 8)
    throw Error(fmt::format("image decode reduction {} is not 1, 2, 4 or 8", reduction));
  return {(full.width + reduction - 1) / reduction, (full.height + reduction - 1) / reduction};
}

cv::Mat decode_image(const uint8_t* data, size_t size, std::string_view name, const DecodeOptions& options) {
  (void)reduced_size({1, 1}, options.reduction);  // reject a bad reduction whatever the format
  return decode_image(data, size, name, options.color, [&](cv::Size) { return options.reduction; });
}

cv::Mat decode_image(const uint8_t* data, size_t size, std::string_view name, ImageColor color,
                     const ReductionFor& reduction_for) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (size == 0) fail(name, "the file is empty");
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
    return decode_jpeg_bytes(data, size, name, color, reduction_for);
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) return decode_png_bytes(data, size, name, color, reduction_for);
  std::string head;
  for (size_t i = 0; i < std::min<size_t>(size, 4); ++i) head += fmt::format("{:02x}", data[i]);
  fail(name, fmt::format("neither a JPEG nor a PNG (the file starts with bytes {})", head));
}

cv::Mat read_image(const std::filesystem::path& path, const DecodeOptions& options) {
  (void)reduced_size({1, 1}, options.reduction);
  return read_image(path, options.color, [&](cv::Size) { return options.reduction; });
}

cv::Mat read_image(const std::filesystem::path& path, ImageColor color, const ReductionFor& reduction_for) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    fail(path.string(), "not a regular file (a directory or a device)");  // tellg() would size it at random
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path.string(), fmt::format("cannot open the file: {}", std::strerror(errno)));
  std::vector<uint8_t> bytes(size_t(std::max<std::streamoff>(in.tellg(), 0)));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    fail(path.string(), "cannot read the file");
  return decode_image(bytes.data(), bytes.size(), path.string(), color, reduction_for);
}

std::vector<uint8_t> encode_png(const cv::Mat& image) {
  check_encodable(image, "PNG");
  PngWriter w;
  std::vector<uint8_t> out;
  out.reserve(image.total() * image.elemSize() / 4 + 1024);
  w.out = &out;
  if (!png_encode_rows(w, image)) throw Error(fmt::format("cannot encode a PNG: {}", w.message));
  return out;
}

std::vector<uint8_t> encode_jpeg(const cv::Mat& image, int quality) {
  check_encodable(image, "JPEG");
  if (quality < 1 || quality > 100) throw UsageError(fmt::format("JPEG quality {} is not in 1..100", quality));
  TjHandle& tj = compressor();
  const bool gray = image.channels() == 1;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  // TurboJPEG encodes with the fast integer DCT unless asked: cv::imwrite uses libjpeg's
  // default, the accurate one.
  const int rc = tjCompress2(tj.get(), image.data, image.cols, int(image.step), image.rows, gray ? TJPF_GRAY : TJPF_BGR,
                             &buffer, &size, gray ? TJSAMP_GRAY : TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  if (rc != 0) {
    tjFree(buffer);
    const std::string message = tjGetErrorStr2(tj.handle);
    tj.reset();
    throw Error(fmt::format("cannot encode a JPEG: {}", message));
  }
  std::vector<uint8_t> out(buffer, buffer + size);
  tjFree(buffer);
  return out;
}

void write_png(const std::filesystem::path& path, const cv::Mat& image) {
  std::vector<uint8_t> bytes;
  try {
    bytes = encode_png(image);
  } catch (const Error& e) {
    throw Error(fmt::format("cannot write '{}': {}", path.string(), e.what()));
  }
  write_bytes(path, bytes);
}

void write_jpeg(const std::filesystem::path& path, const cv::Mat& image, int quality) {
  std::vector<uint8_t> bytes;
  try {
    bytes = encode_jpeg(image, quality);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw Error(fmt::format("cannot write '{}': {}", path.string(), e.what()));
  }
  write_bytes(path, bytes);
}

}  // namespace lane::data
