// scnn-train export: checkpoint -> TorchScript module for torch.jit.load (Python) / torch::jit::load (C++).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "train/commands.h"
#include "train/trainer/model_export.h"

namespace lane::train {

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write a checkpoint's network as a TorchScript module (torch.jit.load)");
  auto o = std::make_shared<ExportOptions>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint_best.pt or checkpoint_latest.pt")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "TorchScript file to write, e.g. scnn_lane.torchscript.pt")->required();
  cmd->callback([o] {
    const ExportSummary s = run_export(*o);
    std::cout << fmt::format(
        "wrote {} (TorchScript; input [B, 3, {}, {}], outputs seg_logits and exist_logits); reloaded and compared "
        "with the checkpoint: max |diff| {:.2g} (segmentation), {:.2g} (existence)\n",
        o->out.string(), s.input_height, s.input_width, s.max_abs_diff_seg, s.max_abs_diff_exist);
  });
}

}  // namespace lane::train
