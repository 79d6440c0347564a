#include "common/progress.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include <fmt/format.h>

namespace lane {

std::string format_bytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

bool is_terminal_stream(const std::ostream& stream) {
  if (&stream == &std::cerr || &stream == &std::clog) return ::isatty(2) == 1;
  if (&stream == &std::cout) return ::isatty(1) == 1;
  return false;
}

int64_t monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// 0:07, 12:30, 1:02:03
std::string clock_text(int64_t secs) {
  if (secs >= 3600) return fmt::format("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
  return fmt::format("{}:{:02}", secs / 60, secs % 60);
}

// 0.4 s, 17.2 s, 2:05 (m:ss from a minute on)
std::string elapsed_text(int64_t ms) {
  return ms < 60'000 ? fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0) : clock_text(ms / 1000);
}

}  // namespace

ProgressReporter::ProgressReporter(std::ostream& out, Mode mode, std::string label, std::function<int64_t()> clock_ms)
    : out_(out), mode_(mode), label_(std::move(label)), clock_(std::move(clock_ms)), started_(clock_()) {}

ProgressReporter::~ProgressReporter() {
  if (!finished_) end_line();
}

ProgressReporter::Mode ProgressReporter::mode_for(const std::ostream& stream, bool quiet) {
  if (quiet) return Mode::kQuiet;
  return is_terminal_stream(stream) ? Mode::kTerminal : Mode::kSummary;
}

void ProgressReporter::set_total(uint64_t bytes, uint64_t files) {
  total_bytes_ = bytes;
  total_files_ = files;
}

void ProgressReporter::advance(uint64_t bytes, uint64_t files) { set_done(bytes_ + bytes, files_ + files); }

void ProgressReporter::set_done(uint64_t bytes, uint64_t files, bool counted) {
  if (!counted) uncounted_ += bytes > bytes_ ? bytes - bytes_ : 0;
  bytes_ = bytes;
  files_ = files;
  if (mode_ != Mode::kTerminal || finished_) return;
  const int64_t now = clock_();
  if (last_draw_ >= 0 && now - last_draw_ < kRedrawMs) return;
  last_draw_ = now;
  draw(false);
}

void ProgressReporter::finish() {
  if (finished_) return;
  finished_ = true;
  if (mode_ == Mode::kQuiet) return;
  draw(true);
  out_ << "\n";
  out_.flush();
  drawn_width_ = 0;
}

void ProgressReporter::message(const std::string& text) {
  end_line();
  out_ << text << "\n";
  out_.flush();
}

void ProgressReporter::end_line() {
  if (drawn_width_ == 0) return;
  out_ << "\n";
  out_.flush();
  drawn_width_ = 0;
}

// On a terminal: '\r', the line, and spaces over what is left of a longer previous one.
// Elsewhere (the summary): the line alone.
void ProgressReporter::draw(bool final) {
  const std::string text = line(final, clock_());
  if (mode_ != Mode::kTerminal) {
    out_ << text;
    return;
  }
  const size_t pad = drawn_width_ > text.size() ? drawn_width_ - text.size() : 0;
  out_ << '\r' << text << std::string(pad, ' ');
  out_.flush();
  drawn_width_ = text.size();
}

std::string ProgressReporter::line(bool final, int64_t now) const {
  const int64_t ms = now - started_;
  const uint64_t counted = bytes_ - std::min(uncounted_, bytes_);
  const double rate = ms > 0 ? static_cast<double>(counted) * 1000.0 / static_cast<double>(ms) : 0.0;
  const std::string rate_text = ms > 0 ? format_bytes(static_cast<uint64_t>(rate)) + "/s" : "-/s";
  std::string files = files_ || total_files_ ? fmt::format(", {} files", files_) : "";
  const bool reported = total_bytes_ || total_files_ || bytes_ || files_;
  if (final && !reported) return fmt::format("{}: done in {}", label_, elapsed_text(ms));  // a copy made elsewhere
  if (final) return fmt::format("{}: {}{} in {} ({})", label_, format_bytes(bytes_), files, elapsed_text(ms), rate_text);
  std::string text = fmt::format("{}: {}", label_, format_bytes(bytes_));
  if (total_bytes_ > 0)
    text += fmt::format(" / {} ({}%)", format_bytes(total_bytes_), std::min<uint64_t>(100, bytes_ * 100 / total_bytes_));
  if (total_files_ > 0) files = fmt::format(", {}/{} files", files_, total_files_);
  text += files + ", " + rate_text;
  if (total_bytes_ > 0 && rate > 0 && bytes_ <= total_bytes_)
    text += ", ETA " + clock_text(static_cast<int64_t>(static_cast<double>(total_bytes_ - bytes_) / rate + 0.5));
  return text;
}

}  // namespace lane
