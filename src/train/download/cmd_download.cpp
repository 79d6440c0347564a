// scnn-train download: fetch, verify, extract and preprocess TuSimple into --out.
#include <iostream>

#include <fmt/format.h>

#include "train/commands/verbs.h"
#include "train/download/download.h"

namespace lane::train {

void run_download_verb(const data::DownloadOptions& options) {
  const auto report = data::download_tusimple(options);
  std::cout << fmt::format("TuSimple ready in {}: {} archives downloaded, {} reused, {} label lines, {} lists\n",
                           options.out.string(), report.fetched.size(), report.reused.size(), report.label_lines,
                           report.lists.size());
}

}  // namespace lane::train
