// `scnn-train synth`: write a synthetic TuSimple data set (docs/data.md).
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "train/commands/verbs.h"
#include "train/data/synth.h"

namespace lane::train {

void run_synth_verb(const data::SynthOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const data::SynthSummary s = data::generate_synth_dataset(options);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("wrote {} frames to {} in {:.1f} s (train {}, val {}, test {}); labels:", options.frames,
                           options.out.string(), secs, s.train, s.val, s.test);
  for (const auto& f : s.label_files) std::cout << " " << f;
  std::cout << "\n";
}

}  // namespace lane::train
