#include "train/tensorboard/event_writer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "train/tensorboard/tensorboard_event.pb.h"
#include "train/tensorboard/record.h"

namespace lane::train::tensorboard {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";

uint32_t big_endian(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

double now_seconds() { return static_cast<double>(now_unix_ms()) / 1000.0; }

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// Opens a new file DIR/events.out.tfevents.<seconds>.<host>[.N] for writing; never an existing one.
int create_event_file(const fs::path& dir, fs::path& path) {
  const std::string base = fmt::format("{}{:010d}.{}", EventWriter::kFilePrefix, now_unix_ms() / 1000, host_name());
  for (int n = 0; n < 1000; ++n) {
    path = dir / (n == 0 ? base : fmt::format("{}.{}", base, n));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) break;
  }
  throw Error(fmt::format("cannot create the TensorBoard event file '{}': {} (or turn event files off with "
                          "--no-tensorboard)", path.string(), std::strerror(errno)));
}

Event event_at(int64_t step, double wall_time) {
  Event e;
  e.set_step(step);
  e.set_wall_time(wall_time);
  return e;
}

}  // namespace

PngInfo png_info(std::string_view png) {
  // signature, then the IHDR chunk: length, "IHDR", width, height, bit depth, colour type
  if (png.size() < 26 || png.substr(0, 8) != kPngSignature || png.substr(12, 4) != "IHDR")
    throw Error("not a PNG image (no PNG signature and IHDR chunk)");
  PngInfo info;
  info.width = static_cast<int>(big_endian(png, 16));
  info.height = static_cast<int>(big_endian(png, 20));
  const int colour_type = static_cast<uint8_t>(png[25]);
  switch (colour_type) {
    case 0: info.colorspace = 1; break;
    case 4: info.colorspace = 2; break;
    case 2: case 3: info.colorspace = 3; break;
    case 6: info.colorspace = 4; break;
    default: throw Error(fmt::format("PNG colour type {} is not valid", colour_type));
  }
  return info;
}

std::vector<std::pair<std::string, double>> record_scalars(const MetricsRecord& record) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [key, value] : record.fields.items())
    if (key != "step" && key != "time" && value.is_number())
      out.emplace_back(record.kind + "/" + key, value.get<double>());
  return out;
}

EventWriter::EventWriter(const fs::path& dir) {
  fd_ = create_event_file(dir, path_);
  Event e = event_at(0, now_seconds());
  e.set_file_version(std::string(kFileVersion));
  try {
    append(e.SerializeAsString());
  } catch (...) {
    ::close(fd_);  // the destructor does not run for a constructor that throws
    throw;
  }
}

EventWriter::~EventWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void EventWriter::restart(int64_t step) {
  Event e = event_at(step, now_seconds());
  e.mutable_session_log()->set_status(SessionLog::START);
  append(e.SerializeAsString());
}

void EventWriter::metrics(const MetricsRecord& record) {
  const auto scalars = record_scalars(record);
  if (scalars.empty()) return;
  Event e = event_at(record.step().value_or(0), record.number("time").value_or(now_seconds()));
  for (const auto& [tag, value] : scalars) {
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(value));
  }
  append(e.SerializeAsString());
}

void EventWriter::image(int64_t step, const std::string& tag, std::string_view png) {
  const PngInfo info = png_info(png);
  Event e = event_at(step, now_seconds());
  auto* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  auto* image = v->mutable_image();
  image->set_width(info.width);
  image->set_height(info.height);
  image->set_colorspace(info.colorspace);
  image->set_encoded_image_string(std::string(png));
  append(e.SerializeAsString());
}

void EventWriter::append(const std::string& event_bytes) {
  const std::string record = frame_record(event_bytes);
  for (size_t done = 0; done < record.size();) {
    const ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(fmt::format("cannot write the TensorBoard event file '{}': {} (or turn event files off with "
                              "--no-tensorboard)", path_.string(), std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
}

}  // namespace lane::train::tensorboard
