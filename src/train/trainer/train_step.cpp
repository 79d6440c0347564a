#include "train/trainer/train_step.h"

namespace lane::train {

double global_seg_normaliser(const ScnnLoss& loss_fn, dist::Communicator& comm, const torch::Tensor& host_seg) {
  return dist::average_scalar(comm, loss_fn.seg_weight(host_seg).item<double>());
}

LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, MixedPrecision& amp, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target, double seg_normaliser) {
  model::ScnnOutput out;
  {
    AutocastScope autocast(amp.device_type, amp.precision);
    out = net->forward(images);
  }
  // The loss in float32 whatever the forward computed in.
  out.seg_logits = out.seg_logits.to(torch::kFloat32);
  out.exist_logits = out.exist_logits.to(torch::kFloat32);
  auto loss = loss_fn(out, seg_target, exist_target, seg_normaliser);
  dist::zero_grad_in_place(opt);  // not opt.zero_grad(): 2.x would drop the zero-copy gradients
  sync.prepare();
  if (amp.scaler) amp.scaler->scale(loss.total).backward();
  else loss.total.backward();
  sync.wait();  // every gradient is now the mean over the ranks
  if (amp.scaler) amp.scaler->step(opt, comm);
  else opt.step();
  return loss;
}

StepParts make_step_parts(const model::ScnnConfig& config, const torch::Device& device) {
  model::Scnn net(config);
  net->to(device);
  auto opt = std::make_unique<torch::optim::SGD>(
      net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
  ScnnLoss loss(config.num_classes, 0.4, 0.1, device);
  return StepParts{net, std::move(opt), std::move(loss)};
}

LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target) {
  MixedPrecision fp32;
  return train_step(net, opt, loss_fn, sync, comm, fp32, images, seg_target, exist_target,
                    global_seg_normaliser(loss_fn, comm, seg_target));
}

}  // namespace lane::train
