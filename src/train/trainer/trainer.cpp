// The training loop, top to bottom (in the manner of llm.c's train_gpt2.c): set up (communicator,
// device, model, optimiser, loaders, resume), then one loop whose every iteration reads:
//   stop? (preempted or finished) -> end of epoch (validate) -> next batch -> step ->
//   log every --log-every steps -> checkpoint every --checkpoint-every steps.
// After the loop: a finished run's last validation (why: see there), the last partial log
// window, the final checkpoint, curves, then the end-of-training hook.
#include "train/trainer/trainer.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

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

// How the loop ends.
enum class Ending { kNone, kPreempted, kFinished };

// The one stop condition, asked before every step. `epoch_over`: the epoch in progress has no
// batch left (it is closed right after this check unless the run is preempted).
//   Preempted (--stop-after): stop at once, as a killed job would, without closing even a
//   completed epoch; --resume continues from exactly there (and closes it).
//   Finished: the step budget is spent, or the last epoch is over.
Ending ending_now(const TrainConfig& cfg, const TrainingProgress& p, int64_t total_steps, bool epoch_over) {
  if (cfg.stop_after > 0 && p.step >= cfg.stop_after && p.step < total_steps) return Ending::kPreempted;
  const int64_t epochs_done = p.epoch + (epoch_over ? 1 : 0);
  if (p.step >= total_steps || epochs_done >= cfg.epochs) return Ending::kFinished;
  return Ending::kNone;
}

// The batches of the epoch in progress, starting where the progress stands (a resumed run
// skips the batches its epoch already consumed).
class EpochBatches {
 public:
  EpochBatches(data::DeviceLoader& loader, int64_t per_epoch) : loader_(loader), per_epoch_(per_epoch) {}
  bool over(const TrainingProgress& p) const { return exhausted_ || p.batch_in_epoch >= per_epoch_; }
  // Counts the epoch as done; the next batch starts the next epoch.
  void close(TrainingProgress& p) {
    ++p.epoch;
    p.batch_in_epoch = 0;
    started_ = exhausted_ = false;
  }
  // The next batch of the epoch; nullopt (and over() from then on) when the loader has none left.
  std::optional<data::DeviceBatch> next(const TrainingProgress& p) {
    if (!started_) {
      loader_.start_epoch(static_cast<int>(p.epoch), static_cast<size_t>(p.batch_in_epoch));
      started_ = true;
    }
    auto batch = loader_.next();
    exhausted_ = !batch;
    return batch;
  }

 private:
  data::DeviceLoader& loader_;
  const int64_t per_epoch_;
  bool started_ = false;
  bool exhausted_ = false;
};

// What the named steps below share; fixed once the run is set up.
struct Run {
  const TrainConfig& cfg;
  dist::Communicator& comm;
  bool lead;  // rank 0: the only rank that writes files and prints
  model::Scnn& net;
  torch::optim::SGD& opt;
  CheckpointModelInfo info;
  fs::path latest_checkpoint;
  fs::path best_checkpoint;
  MetricsLog* metrics;  // rank 0 only
  int64_t total_steps;
};

// Checkpoint: rank 0 saves the weights, optimiser state and progress (atomically).
void save_latest(const Run& run, const TrainingProgress& progress) {
  if (run.lead) save_checkpoint(run.latest_checkpoint, run.net, run.opt, progress, run.info);
}

// Validation: every rank evaluates its shard (collective); rank 0 records and prints the
// numbers and keeps the best checkpoint (which updates progress.best_accuracy).
void validate_now(const Run& run, data::TusimpleLoader& val_loader, TrainingProgress& progress) {
  const auto m = validate(run.net, val_loader, run.cfg.crop_top, run.comm);
  if (!run.lead) return;
  run.metrics->write({{"kind", "val"}, {"step", progress.step}, {"epoch", progress.epoch},
                      {"accuracy", m.accuracy}, {"fp", m.fp}, {"fn", m.fn}, {"frames", m.frames}});
  std::cout << fmt::format("validation at step {}: accuracy {:.4f} FP {:.4f} FN {:.4f} ({} frames)\n",
                           progress.step, m.accuracy, m.fp, m.fn, m.frames);
  std::cout.flush();  // seen as it happens through a pipe (lanectl logs, bench/convergence)
  if (m.accuracy > progress.best_accuracy) {
    progress.best_accuracy = m.accuracy;
    save_checkpoint(run.best_checkpoint, run.net, run.opt, progress, run.info);
  }
}

// The logged training numbers of the steps since the last log line. The losses are summed on
// the device: a step adds to them without reading anything back, and a log line reads them once
// (one device to host copy and one batched allreduce of {total, seg, exist, steps}).
class LogWindow {
 public:
  LogWindow(torch::Device device, Clock::time_point start)
      : sums_(torch::zeros({3}, torch::TensorOptions().dtype(torch::kFloat64).device(device))), start_(start) {}
  void add(const LossParts& l, int64_t images) {
    sums_ += torch::stack({l.total.detach(), l.seg.detach(), l.exist.detach()}).to(torch::kFloat64);
    ++steps_;
    images_ += images;
  }
  int64_t steps() const { return steps_; }
  struct Mean {
    std::array<double, 3> loss;  // {total, seg, exist}: mean over the window's steps and the ranks
    double images_per_s;         // of all ranks, over the window's wall time
  };
  // Collective (every rank). Starts the next window.
  Mean take(dist::Communicator& comm) {
    const auto host = sums_.to(torch::kCPU);
    double v[4] = {host[0].item<double>(), host[1].item<double>(), host[2].item<double>(),
                   static_cast<double>(steps_)};
    comm.allreduce_sum_f64(v, 4);
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const Mean mean{{v[0] / v[3], v[1] / v[3], v[2] / v[3]}, images_ / std::max(seconds, 1e-9)};
    sums_.zero_();
    steps_ = 0;
    images_ = 0;
    start_ = now;
    return mean;
  }

 private:
  torch::Tensor sums_;
  int64_t steps_ = 0;
  int64_t images_ = 0;  // of all ranks
  Clock::time_point start_;
};

// Logging (collective): one metrics record and one progress line on rank 0. Returns the mean loss.
double log_progress(const Run& run, LogWindow& window, const TrainingProgress& progress, double lr,
                    Clock::time_point start, int64_t first_step) {
  const LogWindow::Mean mean = window.take(run.comm);
  const auto& loss = mean.loss;
  if (!run.lead) return loss[0];
  run.metrics->write({{"kind", "train"}, {"step", progress.step}, {"epoch", progress.epoch},
                      {"loss", loss[0]}, {"seg_loss", loss[1]}, {"exist_loss", loss[2]}, {"lr", lr},
                      {"images_per_s", mean.images_per_s}});
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double per_step = elapsed / static_cast<double>(progress.step - first_step);
  std::cout << fmt::format("epoch {}/{} step {}/{} loss {:.4f} (seg {:.4f} exist {:.4f}) lr {:.5f} "
                           "{:.2f} img/s ETA {}\n",
                           progress.epoch + 1, run.cfg.epochs, progress.step, run.total_steps, loss[0], loss[1],
                           loss[2], lr, mean.images_per_s,
                           hms(per_step * static_cast<double>(run.total_steps - progress.step)));
  std::cout.flush();
  return loss[0];
}

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
  const MathMode math = apply_float32_math(device_choice, precision);  // fp32 means fp32 (no TF32)
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
        "{} steps, {} {}{}{}\n",
        cfg.model_name, net->parameter_count(), cfg.model.input_height, cfg.model.input_width,
        cfg.model.num_classes, train_loader.dataset_size(), comm->size(), per_epoch, total_steps,
        device_choice.describe(), precision_name(precision),
        device_choice.kind == DeviceKind::kCuda ? fmt::format(" ({})", math.describe()) : "",
        cfg.resume ? fmt::format(", resuming at step {}", progress.step) : "");
  }

  const Run run{cfg, *comm, lead, net, opt, {cfg.model, cfg.crop_top}, result.latest_checkpoint,
                best_path, metrics.get(), total_steps};
  EpochBatches epoch(batches, per_epoch);
  const auto start = Clock::now();
  const int64_t first_step = progress.step;
  LogWindow window(device, start);
  int64_t validated_at = -1;  // the step of the last validation
  double lr = schedule.at(progress.step);
  double last_loss = 0;
  Ending ending = Ending::kNone;

  net->train();
  for (;;) {
    // 1. Stop?
    ending = ending_now(cfg, progress, total_steps, epoch.over(progress));
    if (ending == Ending::kPreempted) break;
    // 2. End of an epoch: count it and validate.
    if (epoch.over(progress)) {
      epoch.close(progress);
      if (val_loader) {
        validate_now(run, *val_loader, progress);
        validated_at = progress.step;
      }
    }
    if (ending == Ending::kFinished) break;
    // 3. The next batch (on the device; its host target gives the loss normaliser). None left:
    // the epoch is over (a shard shorter than --batch-size × batches/epoch), closed by 2.
    const auto next = epoch.next(progress);
    if (!next) continue;
    const auto& batch = next->batch;
    // 4. The step.
    lr = schedule.at(progress.step);
    set_lr(opt, lr);
    const double normaliser = global_seg_normaliser(loss_fn, *comm, next->host_seg);
    const LossParts loss = train_step(net, opt, loss_fn, sync, *comm, amp, batch.images, batch.seg, batch.exist,
                                      normaliser);
    ++progress.step;
    ++progress.batch_in_epoch;
    window.add(loss, batch.images.size(0) * comm->size());
    // 5. Log every --log-every steps and at the last step (the only place that reads the loss).
    if (progress.step % cfg.log_every == 0 || progress.step == total_steps)
      last_loss = log_progress(run, window, progress, lr, start, first_step);
    // 6. Checkpoint.
    if (progress.step % cfg.checkpoint_every == 0) save_latest(run, progress);
  }
  // A finished run validates its final weights once more unless step 2 just did: a step budget
  // (--max-steps) that ends inside an epoch leaves that epoch unclosed and unvalidated, and the
  // best checkpoint and the last validation line must describe the weights the run ends with.
  // A preempted run does not: the resumed run validates when it closes the epoch.
  if (ending == Ending::kFinished && val_loader && validated_at != progress.step)
    validate_now(run, *val_loader, progress);
  // The last partial log window: a preempted run's, or a run whose last epoch ran out of batches.
  if (window.steps() > 0) last_loss = log_progress(run, window, progress, lr, start, first_step);

  // Final checkpoint, curves, then the end-of-training hook (rank 0 only).
  const bool stopped = ending == Ending::kPreempted;
  save_latest(run, progress);
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
