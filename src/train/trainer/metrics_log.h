#pragma once
// metrics.jsonl (common/run_outputs.h: RunLayout::kMetrics, one MetricsRecord a line): train
// records carry step, epoch, loss, seg_loss, exist_loss, lr and images_per_s (all ranks, over the
// logging window); val records step, epoch, accuracy, fp, fn, frames; both the wall-clock time
// they were written (time, Unix seconds). The dashboard's job page
// draws them. Written only by rank 0, flushed per line so that a crash loses at most the last line.
// Unless --no-tensorboard, each record's numbers also go to a TensorBoard event file in the same
// folder (train/tensorboard/event_writer.h), as scalars train/loss, val/accuracy, ...
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "common/run_outputs.h"
#include "train/tensorboard/event_writer.h"

namespace lane::train {

class MetricsLog {
 public:
  // resume_step >= 0: keep only the records with step <= resume_step (a crashed run may have
  // logged steps after its last checkpoint), then append. Otherwise start a fresh file.
  // tensorboard: also write a new event file beside it (after a resume, it starts with a
  // SessionLog START at resume_step + 1, so that TensorBoard drops the same points).
  MetricsLog(const std::filesystem::path& path, int64_t resume_step, bool tensorboard);
  void write(const MetricsRecord& record);
  // The PNG file as an image of the event file at `step` (nothing without one).
  void image(int64_t step, const std::string& tag, const std::filesystem::path& png);

 private:
  std::ofstream out_;
  std::unique_ptr<tensorboard::EventWriter> events_;
};

// (step, value) series of one kind/key from a metrics file, for the curves PNG.
std::vector<std::pair<double, double>> read_series(const std::filesystem::path& path, std::string_view kind,
                                                   const std::string& key);

}  // namespace lane::train
