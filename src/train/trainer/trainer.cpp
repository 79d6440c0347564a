// The training loop, top to bottom (in the manner of llm.c's train_gpt2.c): set up (communicator,
// device, model, optimiser, loaders, resume), then one loop whose every iteration reads:
// stop? -> end of epoch (validate) -> end of run (validate once more if needed) -> next batch ->
// step -> log every --log-every steps -> checkpoint. At the end: final checkpoint, curves, hook.
#include "train/trainer/trainer.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "train/data/tensors/device_loader.h"
#include "train/data/tensors/loader.h"
#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/after_training.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/curves_plot.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/inference.h"
#include "train/trainer/lr_schedule.h"
#include "train/trainer/mixed_precision.h"
#include "train/trainer/metrics_log.h"
#include "train/trainer/scnn_loss.h"
#include "train/trainer/train_step.h"

namespace lane::train {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

data::LoaderOptions loader_options(const TrainConfig& c, const dist::Communicator& comm, bool validation) {
  data::LoaderOptions o;
  o.data_dir = c.data_dir;
  o.label_files = validation ? c.val_labels : c.train_labels;
  o.input_height = c.model.input_height;
  o.input_width = c.model.input_width;
  o.crop_top = c.crop_top;
  o.lane_slots = c.model.num_classes - 1;
  o.augment = c.augment && !validation;
  o.batch_size = validation ? c.val_batch_size : c.batch_size;
  o.shuffle = !validation;
  o.drop_last = !validation;
  o.seed = c.seed;
  o.rank = comm.rank();
  o.world_size = comm.size();
  o.use_workers = c.use_workers;
  o.num_workers = c.num_workers;
  o.skip_bad = c.skip_bad;
  return o;
}

std::string hms(double seconds) {
  const auto s = static_cast<int64_t>(seconds < 0 ? 0 : seconds);
  return fmt::format("{:02d}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
}

void set_lr(torch::optim::SGD& opt, double lr) {
  for (auto& group : opt.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
}

// The logged training numbers of the steps since the last log line, summed on the device: the
// step adds to them without reading anything back, and the log reads them once (one device to
// host copy, one allreduce of four doubles) every --log-every steps.
class LossWindow {
 public:
  explicit LossWindow(torch::Device device)
      : sums_(torch::zeros({3}, torch::TensorOptions().dtype(torch::kFloat64).device(device))) {}
  void add(const LossParts& l) {
    sums_ += torch::stack({l.total.detach(), l.seg.detach(), l.exist.detach()}).to(torch::kFloat64);
    ++steps_;
  }
  int64_t steps() const { return steps_; }
  // Mean over the window's steps and over the ranks of {total, seg, exist}; resets the window.
  std::array<double, 3> take_mean(dist::Communicator& comm) {
    const auto host = sums_.to(torch::kCPU);
    double v[4] = {host[0].item<double>(), host[1].item<double>(), host[2].item<double>(),
                   static_cast<double>(steps_)};
    comm.allreduce_sum_f64(v, 4);
    sums_.zero_();
    steps_ = 0;
    return {v[0] / v[3], v[1] / v[3], v[2] / v[3]};
  }

 private:
  torch::Tensor sums_;
  int64_t steps_ = 0;
};

}  // namespace

TrainingResult run_training(const TrainConfig& cfg) {
  auto comm = dist::create_communicator();
  const bool lead = comm->rank() == 0;
  if (cfg.threads > 0) torch::set_num_threads(cfg.threads);
  torch::manual_seed(static_cast<uint64_t>(cfg.seed));

  // Device and precision (exit 2 with the fix when the request cannot be met on this rank).
  const DeviceChoice device_choice = select_device(cfg.device, cfg.device_source);
  const bool has_bf16 =
      device_choice.kind == DeviceKind::kCuda ? gpu_has_bf16(device_choice.index) : cpu_has_native_bf16();
  const Precision precision = resolve_precision(cfg.precision, cfg.precision_source, device_choice, has_bf16);
  const torch::Device device = torch_device(device_choice);
  MixedPrecision amp(device.type(), precision);

  TrainingResult result;
  result.output_dir = cfg.output_dir;
  result.latest_checkpoint = cfg.output_dir / "checkpoint_latest.pt";
  result.metrics_file = cfg.output_dir / "metrics.jsonl";
  result.curves_png = cfg.output_dir / "training_curves.png";
  const fs::path best_path = cfg.output_dir / "checkpoint_best.pt";
  if (lead) fs::create_directories(cfg.output_dir);
  if (lead) remove_stale_checkpoint_temporaries(cfg.output_dir);  // left by a killed run

  // Model and optimiser, built and restored on the CPU, then moved to the device.
  model::Scnn net(cfg.model);
  net->set_batch_norm_frozen(cfg.freeze_bn);
  if (!cfg.pretrained.empty()) model::load_vgg16_bn_pretrained(net, cfg.pretrained);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(cfg.lr)
                                               .momentum(cfg.momentum)
                                               .weight_decay(cfg.weight_decay)
                                               .nesterov(cfg.nesterov));
  const CheckpointModelInfo info{cfg.model, cfg.crop_top};

  // Data: every rank reads its own shard.
  data::TusimpleLoader train_loader(loader_options(cfg, *comm, false));
  std::unique_ptr<data::TusimpleLoader> val_loader;
  if (cfg.use_val) val_loader = std::make_unique<data::TusimpleLoader>(loader_options(cfg, *comm, true));
  const auto per_epoch = static_cast<int64_t>(train_loader.batches_per_epoch());
  if (per_epoch == 0)
    throw UsageError(fmt::format("BATCH_SIZE / --batch-size: {} is larger than the {} training frames per rank",
                                 cfg.batch_size, train_loader.shard_size()));
  int64_t total_steps = per_epoch * cfg.epochs;
  if (cfg.max_steps > 0) total_steps = std::min(total_steps, cfg.max_steps);
  const LrSchedule schedule{cfg.lr, cfg.warmup_steps, total_steps, cfg.poly_power};

  TrainingProgress progress;
  if (cfg.resume) {
    if (!fs::exists(result.latest_checkpoint))
      throw UsageError(fmt::format("--resume: no checkpoint at '{}'", result.latest_checkpoint.string()));
    progress = load_checkpoint(result.latest_checkpoint, net, &opt);  // tensors land on the CPU
  }
  // Same starting point on every rank (parameters, BN buffers, momentum), Horovod-style; the
  // broadcasts work on host memory, so they run before the move to the device.
  dist::broadcast_module(*comm, *net);
  dist::broadcast_optimizer_state(*comm, opt);
  net->to(device);
  move_optimizer_state(opt, device);
  // CUDA parameters make the synchronizer reduce with NCCL (bootstrapped over this communicator).
  dist::GradientSynchronizer sync(*comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
  const ScnnLoss loss_fn(cfg.model.num_classes, cfg.background_weight, cfg.exist_weight, device);
  data::DeviceLoader batches(train_loader, device);

  std::unique_ptr<MetricsLog> metrics;
  if (lead) {
    metrics = std::make_unique<MetricsLog>(result.metrics_file, cfg.resume ? progress.step : -1);
    std::cout << fmt::format(
        "scnn-train: model {} ({} parameters, {}x{}, {} classes), {} frames, {} rank(s), {} batches/epoch, "
        "{} steps, {} {}{}\n",
        cfg.model_name, net->parameter_count(), cfg.model.input_height, cfg.model.input_width,
        cfg.model.num_classes, train_loader.dataset_size(), comm->size(), per_epoch, total_steps,
        device_choice.describe(), precision_name(precision),
        cfg.resume ? fmt::format(", resuming at step {}", progress.step) : "");
  }

  // Named steps of the loop.
  auto save_latest = [&] {
    if (lead) save_checkpoint(result.latest_checkpoint, net, opt, progress, info);
  };
  int64_t last_val_step = -1;
  auto run_validation = [&] {
    const auto m = validate(net, *val_loader, cfg.crop_top, *comm);
    last_val_step = progress.step;
    if (!lead) return;
    metrics->write({{"kind", "val"}, {"step", progress.step}, {"epoch", progress.epoch},
                    {"accuracy", m.accuracy}, {"fp", m.fp}, {"fn", m.fn}, {"frames", m.frames}});
    std::cout << fmt::format("validation at step {}: accuracy {:.4f} FP {:.4f} FN {:.4f} ({} frames)\n",
                             progress.step, m.accuracy, m.fp, m.fn, m.frames);
    std::cout.flush();  // seen as it happens through a pipe (lanectl logs, bench/convergence)
    if (m.accuracy > progress.best_accuracy) {
      progress.best_accuracy = m.accuracy;
      save_checkpoint(best_path, net, opt, progress, info);
    }
  };
  const auto start = Clock::now();
  const int64_t first_step = progress.step;
  auto window_start = start;
  int64_t window_images = 0;
  LossWindow window(device);
  double last_loss = 0;
  auto log_progress = [&](double lr) {
    const auto mean = window.take_mean(*comm);  // every rank: the allreduce is collective
    last_loss = mean[0];
    if (!lead) return;
    metrics->write({{"kind", "train"}, {"step", progress.step}, {"epoch", progress.epoch},
                    {"loss", mean[0]}, {"seg_loss", mean[1]}, {"exist_loss", mean[2]}, {"lr", lr}});
    const auto now = Clock::now();
    const double window_s = std::chrono::duration<double>(now - window_start).count();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double per_step = elapsed / static_cast<double>(progress.step - first_step);
    std::cout << fmt::format("epoch {}/{} step {}/{} loss {:.4f} (seg {:.4f} exist {:.4f}) lr {:.5f} "
                             "{:.2f} img/s ETA {}\n",
                             progress.epoch + 1, cfg.epochs, progress.step, total_steps, mean[0], mean[1], mean[2],
                             lr, window_images / std::max(window_s, 1e-9),
                             hms(per_step * static_cast<double>(total_steps - progress.step)));
    std::cout.flush();
    window_start = now;
    window_images = 0;
  };

  net->train();
  bool stopped = false, epoch_started = false, loader_exhausted = false;
  double lr = schedule.at(progress.step);
  for (;;) {
    // 1. Preempted (--stop-after): stop at once, as a killed job would; --resume continues.
    if (cfg.stop_after > 0 && progress.step >= cfg.stop_after && progress.step < total_steps) {
      stopped = true;
      break;
    }
    // 2. End of an epoch: count it and validate.
    if (progress.batch_in_epoch >= per_epoch || loader_exhausted) {
      ++progress.epoch;
      progress.batch_in_epoch = 0;
      epoch_started = loader_exhausted = false;
      if (val_loader) run_validation();
    }
    // 3. End of the run. A run whose step budget ends inside an epoch (--max-steps) was not
    // validated by 2., and the best checkpoint must reflect the final weights: validate here.
    if (progress.step >= total_steps || progress.epoch >= cfg.epochs) {
      if (val_loader && last_val_step != progress.step) run_validation();
      break;
    }
    // 4. The next batch (on the device; its host target gives the loss normaliser).
    if (!epoch_started) {
      batches.start_epoch(static_cast<int>(progress.epoch), static_cast<size_t>(progress.batch_in_epoch));
      epoch_started = true;
    }
    auto next = batches.next();
    if (!next) {
      loader_exhausted = true;
      continue;
    }
    const auto& batch = next->batch;
    // 5. The step.
    lr = schedule.at(progress.step);
    set_lr(opt, lr);
    const double normaliser = global_seg_normaliser(loss_fn, *comm, next->host_seg);
    window.add(train_step(net, opt, loss_fn, sync, *comm, amp, batch.images, batch.seg, batch.exist, normaliser));
    ++progress.step;
    ++progress.batch_in_epoch;
    window_images += batch.images.size(0) * comm->size();
    // 6. Log every --log-every steps and at the last step (the only place that reads the loss).
    if (progress.step % cfg.log_every == 0 || progress.step == total_steps) log_progress(lr);
    // 7. Checkpoint.
    if (progress.step % cfg.checkpoint_every == 0) save_latest();
  }
  if (window.steps() > 0) log_progress(lr);  // a preempted run logs its last partial window

  // Final checkpoint, curves, then the end-of-training hook (rank 0 only).
  save_latest();
  result.steps = progress.step;
  result.final_loss = last_loss;
  result.best_accuracy = progress.best_accuracy;
  if (lead) {
    if (progress.best_accuracy >= 0) result.best_checkpoint = best_path;
    plot_training_curves(result.curves_png, read_curves(result.metrics_file));
    if (train_loader.skipped_images() > 0)
      std::cout << fmt::format("skipped {} unreadable images\n", train_loader.skipped_images());
    if (amp.scaler && amp.scaler->skipped_steps() > 0)
      std::cout << fmt::format("fp16: {} step(s) skipped for non-finite gradients, loss scale {}\n",
                               amp.scaler->skipped_steps(), amp.scaler->current_scale());
    std::cout << fmt::format("{} at step {}: checkpoint {}, metrics {}, curves {}\n",
                             stopped ? "stopped" : "finished", progress.step, result.latest_checkpoint.string(),
                             result.metrics_file.string(), result.curves_png.string());
    if (!stopped) after_training(cfg, result);
  }
  comm->barrier();
  return result;
}

}  // namespace lane::train
