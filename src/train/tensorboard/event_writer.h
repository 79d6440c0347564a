#pragma once
// TensorBoard event files of a training run: `scnn-train train` writes one beside metrics.jsonl
// (rank 0 only), so that `tensorboard --logdir OUTPUT_DIR` shows the run. The records are
// TensorFlow's Event messages (tensorboard_event.proto here, a subset with TensorFlow's field numbers,
// serialized by Debian's protobuf) in TFRecord framing (record.h). No libtorch here.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/run_outputs.h"

namespace lane::train::tensorboard {

// What TensorBoard's Summary.Image needs of a PNG, read from its IHDR chunk. Throws lane::Error
// when `png` is not a PNG.
struct PngInfo {
  int width = 0, height = 0;
  int colorspace = 0;  // 1 grayscale, 2 grayscale + alpha, 3 RGB (also palette), 4 RGBA
};
PngInfo png_info(std::string_view png);

// The scalars of a metrics.jsonl record: "<kind>/<key>" (train/loss, val/accuracy, ...) for each
// number but "step" and "time", in key order (alphabetical, as nlohmann::json keeps them).
std::vector<std::pair<std::string, double>> record_scalars(const MetricsRecord& record);

class EventWriter {
 public:
  static constexpr std::string_view kFilePrefix = "events.out.tfevents.";
  static constexpr std::string_view kFileVersion = "brain.Event:2";

  // Creates DIR/events.out.tfevents.<Unix seconds>.<hostname> (".1", ".2", ... appended when the
  // name is taken: a file is never appended to) and writes its first event, the file version.
  explicit EventWriter(const std::filesystem::path& dir);
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // A resumed run's SessionLog START at `step`: TensorBoard drops the points at or after that step
  // that earlier files hold (logged after the checkpoint the run resumed from).
  void restart(int64_t step);
  // The record's scalars (record_scalars) at its step and its "time" (now when it has none).
  void metrics(const MetricsRecord& record);
  // A PNG image summary.
  void image(int64_t step, const std::string& tag, std::string_view png);

 private:
  // The event as one record, written at once with write(2) (no buffer holds it back), so that the
  // file ends in a whole record unless a write fails.
  void append(const std::string& event_bytes);

  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace lane::train::tensorboard
