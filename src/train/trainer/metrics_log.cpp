#include "train/trainer/metrics_log.h"

#include <sstream>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::train {
namespace fs = std::filesystem;

MetricsLog::MetricsLog(const fs::path& path, int64_t resume_step) {
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
  if (resume_step >= 0 && fs::exists(path)) {
    std::istringstream in(read_file(path));
    std::string kept;
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("step") || j["step"].get<int64_t>() > resume_step) continue;
      kept += line + "\n";
    }
    write_file_atomic(path, kept);
    out_.open(path, std::ios::app);
  } else {
    out_.open(path, std::ios::trunc);
  }
  if (!out_) throw Error("cannot open metrics file '" + path.string() + "'");
}

void MetricsLog::write(const nlohmann::json& record) {
  out_ << record.dump() << "\n";
  out_.flush();
}

std::vector<std::pair<double, double>> read_series(const fs::path& path, const std::string& kind,
                                                   const std::string& key) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("kind", "") != kind || !j.contains(key) || !j.contains("step")) continue;
    out.emplace_back(j["step"].get<double>(), j[key].get<double>());
  }
  return out;
}

}  // namespace lane::train
