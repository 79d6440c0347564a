#pragma once
// scnn-train export: a checkpoint -> a TorchScript file (see torchscript_export.h), written
// atomically and checked by loading it back and comparing its outputs with the checkpoint's
// network on a fixed input. No libtorch in this header.
#include <filesystem>

#include "train/commands/verb_options.h"

namespace lane::train {

struct ExportSummary {
  double max_abs_diff_seg = 0, max_abs_diff_exist = 0;  // reloaded TorchScript vs checkpoint network
  int input_height = 0, input_width = 0;
};

ExportSummary run_export(const ExportOptions& options);

}  // namespace lane::train
