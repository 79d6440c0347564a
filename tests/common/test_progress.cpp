// common/progress.h: the one progress reporter, driven by a fake clock into a string stream.
#include <catch2/catch.hpp>

#include <sstream>

#include "common/progress.h"

using lane::ProgressReporter;

namespace {

struct Fixture {
  std::ostringstream out;
  int64_t now = 1000;
  ProgressReporter make(ProgressReporter::Mode mode, const std::string& label = "snapshot create") {
    return ProgressReporter(out, mode, label, [this] { return now; });
  }
};

constexpr uint64_t kMiB = 1024 * 1024;

}  // namespace

TEST_CASE("progress on a terminal: bytes, files, rate and ETA redrawn with a carriage return", "[common][fast]") {
  Fixture f;
  {
    auto p = f.make(ProgressReporter::Mode::kTerminal);
    p.set_total(100 * kMiB, 10);
    f.now += 2000;  // 2 s for 20 MiB: 10 MiB/s, 80 MiB left: 8 s
    p.advance(20 * kMiB, 2);
    CHECK(f.out.str() == "\rsnapshot create: 20.0 MiB / 100.0 MiB (20%), 2/10 files, 10.0 MiB/s, ETA 0:08");
    f.out.str("");
    f.now += 8000;
    p.advance(80 * kMiB, 8);
    p.finish();
  }
  // The final line is the summary, padded over the longer progress line, then a newline.
  const std::string done = "snapshot create: 100.0 MiB, 10 files in 10.0 s (10.0 MiB/s)";
  const std::string progress = "snapshot create: 100.0 MiB / 100.0 MiB (100%), 10/10 files, 10.0 MiB/s, ETA 0:00";
  CHECK(f.out.str() == "\r" + progress + "\r" + done + std::string(progress.size() - done.size(), ' ') + "\n");
}

TEST_CASE("progress redraws at most every 100 ms", "[common][fast]") {
  Fixture f;
  auto p = f.make(ProgressReporter::Mode::kTerminal, "restore");
  p.set_total(1000, 0);
  p.advance(1, 0);  // the first report draws
  for (int i = 0; i < 50; ++i) {
    f.now += 10;  // 500 ms of reports every 10 ms: five more redraws
    p.advance(1, 0);
  }
  size_t redraws = 0;
  for (char c : f.out.str()) redraws += c == '\r';
  CHECK(redraws == 6);
  CHECK(f.out.str().find('\n') == std::string::npos);
}

TEST_CASE("progress elsewhere is one summary line, quiet prints nothing", "[common][fast]") {
  Fixture f;
  {
    auto p = f.make(ProgressReporter::Mode::kSummary);
    p.set_total(3 * kMiB, 3);
    for (int i = 0; i < 3; ++i) {
      f.now += 500;
      p.advance(kMiB, 1);
    }
    p.finish();
    p.finish();  // once
  }
  CHECK(f.out.str() == "snapshot create: 3.0 MiB, 3 files in 1.5 s (2.0 MiB/s)\n");

  Fixture q;
  {
    auto p = q.make(ProgressReporter::Mode::kQuiet);
    p.set_total(10, 1);
    p.advance(10, 1);
    p.finish();
  }
  CHECK(q.out.str().empty());
}

TEST_CASE("progress without a known total, nothing reported, resumed bytes and a failure", "[common][fast]") {
  Fixture f;
  {
    auto p = f.make(ProgressReporter::Mode::kTerminal, "train_set.zip");
    p.set_done(40 * kMiB, 0, /*counted=*/false);  // a resumed download: not in the rate
    f.now += 1000;
    p.set_done(44 * kMiB, 0);
  }  // destroyed unfinished: the drawn line is ended so an error starts on its own line
  CHECK(f.out.str() == "\rtrain_set.zip: 40.0 MiB, -/s\rtrain_set.zip: 44.0 MiB, 4.0 MiB/s\n");

  Fixture g;
  auto p = g.make(ProgressReporter::Mode::kSummary, "restore");
  g.now += 61'000;
  p.finish();  // a copy the store does not report (a CSI clone): the time only
  CHECK(g.out.str() == "restore: done in 1:01\n");
}

TEST_CASE("a message ends the drawn progress line first", "[common][fast]") {
  Fixture f;
  auto p = f.make(ProgressReporter::Mode::kTerminal, "x");
  p.advance(5, 0);
  p.message("x: timeout; retrying (1/3) from byte 5");
  CHECK(f.out.str() == "\rx: 5 B, -/s\nx: timeout; retrying (1/3) from byte 5\n");
  CHECK(lane::format_bytes(1536) == "1.5 KiB");
  CHECK(lane::format_bytes(300) == "300 B");
}
