// scnn-train download: fetch, verify, extract and preprocess TuSimple into --out.
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "train/commands.h"
#include "train/download/download.h"

namespace lane::train {

void add_download_command(CLI::App& app) {
  struct Args {
    data::DownloadOptions options;
    std::string archives;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("download", "Download, extract and preprocess TuSimple (resumable)");
  cmd->add_option("--out", args->options.out, "Folder for the data set (clips/, label_data_*.json, lists/)")
      ->required();
  cmd->add_option("--base-url", args->options.base_url, "Where the archives live (a mirror of the official layout)")
      ->capture_default_str();
  cmd->add_option("--archives", args->archives,
                  "Comma-separated archive names [default: train_set.zip,test_set.zip,test_label.json]");
  cmd->add_option("--checksums", args->options.checksums, "sha256sum-style file with the archives' SHA-256")
      ->check(CLI::ExistingFile);
  cmd->add_option("--retries", args->options.retries, "Extra attempts after an interrupted transfer")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd->add_flag("--remove-archives", args->options.remove_archives, "Delete the archives once the set is complete");
  cmd->add_flag("--quiet", args->quiet, "No progress lines");
  cmd->callback([args] {
    std::stringstream ss(args->archives);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) args->options.archives.push_back(item);
    args->options.progress = !args->quiet;
    const auto report = data::download_tusimple(args->options);
    std::cout << fmt::format("TuSimple ready in {}: {} archives downloaded, {} reused, {} label lines, {} lists\n",
                             args->options.out.string(), report.fetched.size(), report.reused.size(),
                             report.label_lines, report.lists.size());
  });
}

}  // namespace lane::train
