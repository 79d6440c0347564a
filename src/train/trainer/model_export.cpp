#include "train/trainer/model_export.h"

#include <sstream>

#include <fmt/format.h>
#include <torch/script.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/torchscript_export.h"

namespace lane::train {

ExportSummary run_export(const ExportOptions& o) {
  if (o.out.empty()) throw UsageError("--out is required: the TorchScript file to write");
  CheckpointFile checkpoint(o.checkpoint);
  const auto info = checkpoint.info();
  model::Scnn net(info.model);
  checkpoint.load_into(net, nullptr);
  net->eval();
  torch::NoGradGuard no_grad;

  torch::jit::Module module = to_torchscript(net, info.crop_top);
  std::ostringstream bytes;
  module.save(bytes);
  if (o.out.has_parent_path()) std::filesystem::create_directories(o.out.parent_path());
  write_file_atomic(o.out, bytes.str());

  // Check what was written: load the file back and compare with the checkpoint's network.
  torch::jit::Module loaded = torch::jit::load(o.out.string());
  loaded.eval();
  torch::manual_seed(0);
  const auto input = torch::randn({2, 3, info.model.input_height, info.model.input_width});
  const auto expected = net->forward(input);
  const auto got = loaded.forward({input}).toTuple();
  ExportSummary s;
  s.input_height = info.model.input_height;
  s.input_width = info.model.input_width;
  s.max_abs_diff_seg = (got->elements()[0].toTensor() - expected.seg_logits).abs().max().item<double>();
  s.max_abs_diff_exist = (got->elements()[1].toTensor() - expected.exist_logits).abs().max().item<double>();
  if (!(s.max_abs_diff_seg <= 1e-4 && s.max_abs_diff_exist <= 1e-4))
    throw Error(fmt::format("export check failed: the reloaded TorchScript differs from the checkpoint by {:.3g} "
                            "(segmentation) / {:.3g} (existence)",
                            s.max_abs_diff_seg, s.max_abs_diff_exist));
  return s;
}

}  // namespace lane::train
