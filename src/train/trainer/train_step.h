#pragma once
// One synchronous data-parallel SGD step, shared by the trainer and bench/scaling so that the
// benchmark measures the trainer's own step. Includes libtorch: trainer and bench code only.
#include <torch/torch.h>

#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/scnn_loss.h"

namespace lane::train {

// Forward, the loss normalised over the global batch of all ranks, backward with the gradient
// averaging overlapped (sync), optimiser step. Returns this rank's loss parts.
LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target);

}  // namespace lane::train
