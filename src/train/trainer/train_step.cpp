#include "train/trainer/train_step.h"

namespace lane::train {

LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target) {
  const auto out = net->forward(images);
  // One scalar allreduce: the segmentation loss is divided by the class weight of the whole
  // global batch (per rank: its mean), so the averaged gradient is the large-batch gradient.
  const double normaliser = dist::average_scalar(comm, loss_fn.seg_weight(seg_target).item<double>());
  auto loss = loss_fn(out, seg_target, exist_target, normaliser);
  opt.zero_grad();
  sync.prepare();
  loss.total.backward();
  sync.wait();  // every gradient is now the mean over the ranks
  opt.step();
  return loss;
}

}  // namespace lane::train
