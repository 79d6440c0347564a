// `scnn-train synth`: write a synthetic TuSimple data set (docs/data.md).
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "train/commands.h"
#include "train/data/synth.h"

namespace lane::train {

void add_synth_command(CLI::App& app) {
  auto opts = std::make_shared<data::SynthOptions>();
  auto* cmd = app.add_subcommand("synth", "Generate a synthetic TuSimple data set");
  cmd->add_option("--out", opts->out, "Folder to write clips/, label_data_*.json and lists/ to")->required();
  cmd->add_option("--frames", opts->frames, "Number of labelled frames")->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed; the same seed gives the same data set")->capture_default_str();
  cmd->add_option("--val-fraction", opts->val_fraction, "Share of frames in the val split")->capture_default_str();
  cmd->add_option("--test-fraction", opts->test_fraction, "Share of frames in the test split")->capture_default_str();
  cmd->add_option("--threads", opts->threads, "Render threads (0: one per core)")->capture_default_str();
  cmd->callback([opts] {
    const auto start = std::chrono::steady_clock::now();
    const data::SynthSummary s = data::generate_synth_dataset(*opts);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << fmt::format("wrote {} frames to {} in {:.1f} s (train {}, val {}, test {}); labels:", opts->frames,
                             opts->out.string(), secs, s.train, s.val, s.test);
    for (const auto& f : s.label_files) std::cout << " " << f;
    std::cout << "\n";
  });
}

}  // namespace lane::train
