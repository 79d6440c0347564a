// scnn-train export: checkpoint -> TorchScript module for torch.jit.load (Python) / torch::jit::load (C++).
#include <iostream>

#include <fmt/format.h>

#include "train/commands/verbs.h"
#include "train/trainer/model_export.h"

namespace lane::train {

void run_export_verb(const ExportOptions& options) {
  const ExportSummary s = run_export(options);
  std::cout << fmt::format(
      "wrote {} (TorchScript; input [B, 3, {}, {}], outputs seg_logits and exist_logits); reloaded and compared "
      "with the checkpoint: max |diff| {:.2g} (segmentation), {:.2g} (existence)\n",
      options.out.string(), s.input_height, s.input_width, s.max_abs_diff_seg, s.max_abs_diff_exist);
}

}  // namespace lane::train
