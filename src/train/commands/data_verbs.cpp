// scnn-train eval, synth, inspect and download: their flags and checks.
#include <memory>
#include <sstream>
#include <string>

#include "common/error.h"
#include "train/commands/verb_groups.h"

namespace lane::train {

namespace {

void add_eval(CLI::App& app, const std::function<void(const EvalOptions&)>& run) {
  auto o = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand("eval", "Evaluate predictions with the official TuSimple metric (lane.py)");
  cmd->add_option("--pred", o->pred, "Prediction JSON lines: raw_file, lanes, run_time (ms) per frame")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--gt", o->gt, "Ground-truth label JSON lines (e.g. test_label.json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--per-frame", o->per_frame,
                "Also print a table of every frame's accuracy, FP and FN, worst first, with its overlay file name");
  cmd->add_option("--top", o->top, "With --per-frame: print only the N worst frames [default: all]");
  cmd->callback([o, run] {
    if (o->top > 0 && !o->per_frame) throw UsageError("--top needs --per-frame (e.g. --per-frame --top 10)");
    run(*o);
  });
}

void add_synth(CLI::App& app, const std::function<void(const data::SynthOptions&)>& run) {
  auto o = std::make_shared<data::SynthOptions>();
  auto* cmd = app.add_subcommand("synth", "Generate a synthetic TuSimple data set");
  cmd->add_option("--out", o->out, "Folder to write clips/, label_data_*.json and lists/ to")->required();
  cmd->add_option("--frames", o->frames, "Number of labelled frames")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed; the same seed gives the same data set")->capture_default_str();
  cmd->add_option("--val-fraction", o->val_fraction, "Share of frames in the val split")->capture_default_str();
  cmd->add_option("--test-fraction", o->test_fraction, "Share of frames in the test split")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Render threads (0: one per core)")->capture_default_str();
  cmd->callback([o, run] { run(*o); });
}

void add_inspect(CLI::App& app, const std::function<void(const InspectOptions&)>& run) {
  auto o = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand("inspect", "Load a TuSimple set, print statistics and write label overlays");
  cmd->add_option("--data", o->data, "Data root holding clips/ and label_data_*.json")->required();
  cmd->add_option("--labels", o->labels, "Label files relative to --data [default: every label_data*.json]");
  cmd->add_option("--overlays", o->overlays, "Folder for overlay PNGs of the first --count samples");
  cmd->add_option("--count", o->count, "Samples to show and overlay")->capture_default_str();
  cmd->add_option("--lane-slots", o->lane_slots, "Segmentation slots: 6 or 4")->capture_default_str();
  cmd->add_flag("--skip-bad", o->skip_bad, "Skip malformed label lines instead of failing");
  cmd->callback([o, run] { run(*o); });
}

void add_download(CLI::App& app, const std::function<void(const data::DownloadOptions&)>& run) {
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
  cmd->callback([args, run, cmd] {
    std::stringstream ss(args->archives);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) args->options.archives.push_back(item);
    if (args->options.archives.empty() && cmd->count("--archives") > 0)
      throw UsageError("--archives: no archive named; give names such as train_set.zip,test_label.json, or leave "
                       "the flag out for the full set");
    args->options.progress = !args->quiet;
    run(args->options);
  });
}

}  // namespace

void add_data_verbs(CLI::App& app, const Verbs& verbs) {
  if (verbs.eval) add_eval(app, verbs.eval);
  if (verbs.synth) add_synth(app, verbs.synth);
  if (verbs.inspect) add_inspect(app, verbs.inspect);
  if (verbs.download) add_download(app, verbs.download);
}

}  // namespace lane::train
