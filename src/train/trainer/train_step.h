#pragma once
// One synchronous data-parallel SGD step, shared by the trainer and the benchmarks so that they
// measure the trainer's own step. Includes libtorch: trainer and bench code only.
#include <torch/torch.h>

#include <memory>

#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/mixed_precision.h"
#include "train/trainer/scnn_loss.h"

namespace lane::train {

// The segmentation-loss denominator of the global batch: the mean over the ranks of each rank's
// class-weight sum (ScnnLoss::seg_weight). Computed from the host copy of the target, so it
// costs one small MPI allreduce (none with one rank) and never waits for the device.
double global_seg_normaliser(const ScnnLoss& loss_fn, dist::Communicator& comm, const torch::Tensor& host_seg);

// Forward (under autocast for bf16/fp16; the parameters stay float32), the loss normalised by
// seg_normaliser in float32, backward (fp16: of the scaled loss) with the gradient averaging
// overlapped (sync), optimiser step (fp16: skipped when a gradient is not finite). No host
// synchronisation except fp16's one finite-check read. Returns this rank's loss parts (device
// tensors; reading them is the caller's choice).
LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, MixedPrecision& amp, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target, double seg_normaliser);

// What a training step needs besides the data and the communicator, built for one device: the
// model with its parameters there, SGD (lr 0.01, momentum 0.9, weight decay 1e-4: the benchmarks'
// settings) over them, and the loss with its class weights there. The benchmarks build their
// steps with it, so a CUDA step gets a CUDA loss.
struct StepParts {
  model::Scnn net;
  std::unique_ptr<torch::optim::SGD> opt;
  ScnnLoss loss;
};
StepParts make_step_parts(const model::ScnnConfig& config, const torch::Device& device);

// fp32 on host tensors, normaliser included (bench/scaling).
LossParts train_step(model::Scnn& net, torch::optim::Optimizer& opt, const ScnnLoss& loss_fn,
                     dist::GradientSynchronizer& sync, dist::Communicator& comm, const torch::Tensor& images,
                     const torch::Tensor& seg_target, const torch::Tensor& exist_target);

}  // namespace lane::train
