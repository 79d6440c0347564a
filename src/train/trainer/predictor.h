#pragma once
// scnn-train predict: run a checkpoint on frames, write TuSimple submission json-lines and
// overlay PNGs, report the time per image. No libtorch in this header.
#include <filesystem>
#include <string>

namespace lane::train {

struct PredictOptions {
  std::filesystem::path checkpoint;
  std::filesystem::path input;     // one image, or a folder searched recursively for .jpg/.png
  std::filesystem::path out_dir;   // predictions.json + overlays/
  std::filesystem::path raw_root;  // raw_file is relative to this; default: the input folder
  int threads = 0;                 // 0: OMP_NUM_THREADS or libtorch's default
};

struct PredictSummary {
  size_t images = 0;
  double mean_ms = 0;  // network + post-processing per image
  std::filesystem::path predictions;
};

PredictSummary run_predict(const PredictOptions& options);

}  // namespace lane::train
