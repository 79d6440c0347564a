#include "train/trainer/metrics_log.h"

#include <sstream>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::train {
namespace fs = std::filesystem;

MetricsLog::MetricsLog(const fs::path& path, int64_t resume_step, bool tensorboard) {
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
  if (resume_step >= 0 && fs::exists(path)) {
    std::istringstream in(read_file(path));
    std::string kept;
    for (std::string line; std::getline(in, line);) {
      const auto record = MetricsRecord::parse(line);
      const auto step = record ? record->step() : std::nullopt;
      if (step && *step <= resume_step) kept += line + "\n";
    }
    write_file_atomic(path, kept);
    out_.open(path, std::ios::app);
  } else {
    out_.open(path, std::ios::trunc);
  }
  if (!out_) throw Error("cannot open metrics file '" + path.string() + "'");
  if (!tensorboard) return;
  events_ = std::make_unique<tensorboard::EventWriter>(path.parent_path().empty() ? fs::path(".") : path.parent_path());
  if (resume_step >= 0) events_->restart(resume_step + 1);
}

void MetricsLog::write(const MetricsRecord& record) {
  out_ << record.to_line() << "\n";
  out_.flush();
  if (events_) events_->metrics(record);
}

void MetricsLog::image(int64_t step, const std::string& tag, const fs::path& png) {
  if (events_) events_->image(step, tag, read_file(png));
}

std::vector<std::pair<double, double>> read_series(const fs::path& path, std::string_view kind,
                                                   const std::string& key) {
  std::vector<std::pair<double, double>> out;
  for (const auto& record : parse_metrics_records(read_file(path))) {
    const auto step = record.number("step");
    const auto value = record.number(key);
    if (record.kind == kind && step && value) out.emplace_back(*step, *value);
  }
  return out;
}

}  // namespace lane::train
