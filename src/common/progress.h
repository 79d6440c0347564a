#pragma once
// Progress of a long operation (snapshot create, restore, verify, a download) on an error stream,
// the one reporter every such command uses. On a terminal it redraws one line with '\r', at most
// every kRedrawMs, like `rsync --info=progress2`:
//   snapshot create: 1.2 GiB / 2.8 GiB (43%), 1204/2801 files, 152.3 MiB/s, ETA 0:11
// and ends it with a newline when finished. Elsewhere (a file, a pipe) it prints only one summary
// line at the end:
//   snapshot create: 2.8 GiB, 2801 files in 17.2 s (166.4 MiB/s)
// (or "restore: done in 3.1 s" when the operation reported no bytes: a copy the cluster made).
// Quiet, it prints nothing. Time comes from an injected monotonic clock (milliseconds), so the
// output is a pure function of the calls and the clock.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace lane {

// What an operation reports; the storage code sees only this.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // The totals, when known (0 bytes: unknown size, no percentage or ETA; 0 files: no file count).
  virtual void set_total(uint64_t bytes, uint64_t files) = 0;
  // Work done since the last call.
  virtual void advance(uint64_t bytes, uint64_t files) = 0;
};

// 1.5 GiB, 12.0 KiB, 300 B (binary units, one decimal).
std::string format_bytes(uint64_t bytes);

// True when `stream` is std::cerr/std::clog on a terminal (fd 2) or std::cout on one (fd 1).
bool is_terminal_stream(const std::ostream& stream);

// A monotonic clock in milliseconds (steady_clock).
int64_t monotonic_ms();

class ProgressReporter : public ProgressSink {
 public:
  enum class Mode { kTerminal, kSummary, kQuiet };
  static constexpr int64_t kRedrawMs = 100;

  ProgressReporter(std::ostream& out, Mode mode, std::string label,
                   std::function<int64_t()> clock_ms = monotonic_ms);
  // Ends a line left half drawn (the operation failed), so an error starts on a line of its own.
  ~ProgressReporter() override;

  // kQuiet when `quiet`, else kTerminal or kSummary as `stream` is a terminal or not.
  static Mode mode_for(const std::ostream& stream, bool quiet);

  void set_total(uint64_t bytes, uint64_t files) override;
  void advance(uint64_t bytes, uint64_t files) override;
  // Sets what is done so far (a resumed download starts with bytes already there: `counted`
  // false keeps them out of the rate).
  void set_done(uint64_t bytes, uint64_t files, bool counted = true);
  // The final line (terminal) or the summary; once.
  void finish();
  // A line of its own between redraws (a retry), printed even when quiet: ends the drawn line first.
  void message(const std::string& line);

 private:
  void draw(bool final);
  std::string line(bool final, int64_t now) const;
  void end_line();

  std::ostream& out_;
  Mode mode_;
  std::string label_;
  std::function<int64_t()> clock_;
  int64_t started_ = 0, last_draw_ = -1;
  uint64_t total_bytes_ = 0, total_files_ = 0, bytes_ = 0, files_ = 0, uncounted_ = 0;
  size_t drawn_width_ = 0;  // the width of the line on screen (0: none)
  bool finished_ = false;
};

}  // namespace lane
