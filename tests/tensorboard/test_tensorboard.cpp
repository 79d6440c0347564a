// TensorBoard event files (src/train/tensorboard): the CRC32C, the TFRecord framing and what
// EventWriter writes, read back record by record. tests/tensorboard/read_events.py reads a real
// training run's file with an independent decoder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/error.h"
#include "train/tensorboard/event_writer.h"
#include "train/tensorboard/record.h"
#include "train/tensorboard/tensorboard_event.pb.h"

namespace tb = lane::train::tensorboard;
namespace fs = std::filesystem;

namespace {

uint64_t little_endian(const std::string& bytes, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[at + static_cast<size_t>(i)]);
  return v;
}

// The events of a file, each record's framing and checksums checked.
std::vector<tb::Event> read_events(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<tb::Event> events;
  for (size_t at = 0; at < bytes.size();) {
    REQUIRE(at + 12 <= bytes.size());
    const uint64_t length = little_endian(bytes, at, 8);
    REQUIRE(little_endian(bytes, at + 8, 4) == tb::masked_crc32c(bytes.substr(at, 8)));
    REQUIRE(at + 16 + length <= bytes.size());
    const std::string data = bytes.substr(at + 12, length);
    REQUIRE(little_endian(bytes, at + 12 + length, 4) == tb::masked_crc32c(data));
    tb::Event e;
    REQUIRE(e.ParseFromString(data));
    events.push_back(e);
    at += 16 + length;
  }
  return events;
}

// The first bytes of a PNG up to its IHDR chunk's colour type (what png_info reads).
std::string png_header(uint32_t width, uint32_t height, uint8_t colour_type) {
  std::string s("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16);
  for (const uint32_t v : {width, height})
    for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
  s.push_back(8);
  s.push_back(static_cast<char>(colour_type));
  return s + std::string(7, '\0');
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("lane_tensorboard_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("CRC32C gives the standard check values and TFRecord frames carry masked checksums", "[tensorboard][fast]") {
  CHECK(tb::crc32c("123456789") == 0xE3069283u);
  CHECK(tb::crc32c(std::string(32, '\0')) == 0x8A9136AAu);  // RFC 3720, B.4
  CHECK(tb::crc32c("") == 0u);
  const uint32_t c = tb::crc32c("123456789");
  CHECK(tb::masked_crc32c("123456789") == ((c >> 15) | (c << 17)) + 0xa282ead8u);

  const std::string record = tb::frame_record("abc");
  REQUIRE(record.size() == 3 + 16);
  CHECK(little_endian(record, 0, 8) == 3);
  CHECK(little_endian(record, 8, 4) == tb::masked_crc32c(record.substr(0, 8)));
  CHECK(record.substr(12, 3) == "abc");
  CHECK(little_endian(record, 15, 4) == tb::masked_crc32c("abc"));
}

TEST_CASE("png_info reads a PNG's size and colour space and refuses other bytes", "[tensorboard][fast]") {
  const auto rgb = tb::png_info(png_header(1280, 720, 2));
  CHECK(rgb.width == 1280);
  CHECK(rgb.height == 720);
  CHECK(rgb.colorspace == 3);
  CHECK(tb::png_info(png_header(3, 2, 6)).colorspace == 4);
  CHECK(tb::png_info(png_header(3, 2, 0)).colorspace == 1);
  CHECK_THROWS_AS(tb::png_info("\xff\xd8\xff\xe0 a JPEG"), lane::Error);
  CHECK_THROWS_AS(tb::png_info(png_header(3, 2, 5)), lane::Error);
}

TEST_CASE("record_scalars names every number of a metrics record but its step and time", "[tensorboard][fast]") {
  const auto record = lane::MetricsRecord::parse(R"({"kind":"val","step":6,"epoch":1,"accuracy":0.25,"time":1.5,"note":"x"})");
  REQUIRE(record);
  const auto scalars = tb::record_scalars(*record);
  REQUIRE(scalars.size() == 2);
  CHECK(scalars[0] == std::pair<std::string, double>{"val/accuracy", 0.25});
  CHECK(scalars[1] == std::pair<std::string, double>{"val/epoch", 1.0});
}

TEST_CASE("EventWriter starts a new file with the file version and appends whole records", "[tensorboard][fast]") {
  TempDir dir;
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  tb::EventWriter first(dir.path), second(dir.path);  // the same second: the second gets ".1"
  const std::string name = first.path().filename().string();
  CHECK(name.rfind("events.out.tfevents.", 0) == 0);
  CHECK(name.size() > 31);
  CHECK(name.substr(31) == std::string(host));  // prefix (20) + 10 digits + '.'
  CHECK(second.path().string() == first.path().string() + ".1");

  const auto record = lane::MetricsRecord::parse(R"({"kind":"train","step":4,"loss":0.5,"lr":0.01,"time":1700000000.125})");
  first.restart(3);
  first.metrics(*record);
  const std::string png = png_header(4, 2, 2);
  first.image(4, "training_curves", png);
  const auto events = read_events(first.path());
  REQUIRE(events.size() == 4);
  CHECK(events[0].file_version() == "brain.Event:2");
  CHECK(events[1].session_log().status() == tb::SessionLog::START);
  CHECK(events[1].step() == 3);
  CHECK(events[2].step() == 4);
  CHECK(events[2].wall_time() == 1700000000.125);
  REQUIRE(events[2].summary().value_size() == 2);
  CHECK(events[2].summary().value(0).tag() == "train/loss");
  CHECK(events[2].summary().value(0).simple_value() == 0.5f);
  CHECK(events[2].summary().value(1).tag() == "train/lr");
  const auto& image = events[3].summary().value(0);
  CHECK(image.tag() == "training_curves");
  CHECK(image.image().width() == 4);
  CHECK(image.image().height() == 2);
  CHECK(image.image().colorspace() == 3);
  CHECK(image.image().encoded_image_string() == png);
  CHECK(read_events(second.path()).size() == 1);
}
