// The training loop, top to bottom (in the manner of llm.c's train_gpt2.c): set up (communicator,
// device, model, optimiser, loaders, resume), then one loop whose every iteration reads:
//   stop? (preempted or finished) -> end of epoch (validate) -> next batch -> step ->
//   log every --log-every steps -> checkpoint every --checkpoint-every steps.
// After the loop: a finished run's last validation (why: see there), the last partial log
// window, the final checkpoint, curves, then the end-of-training hook.
#include "train/trainer/trainer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "train/data/tensors/device_loader.h"
#include "train/data/tensors/loader.h"
#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/curves_plot.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/inference.h"
#include "train/trainer/lr_schedule.h"
#include "train/trainer/memory_check.h"
#include "train/trainer/mixed_precision.h"
#include "train/trainer/metrics_log.h"
#include "train/trainer/scnn_loss.h"
#include "train/trainer/stop_signal.h"
#include "train/config/train_settings.h"
#include "train/trainer/train_step.h"

namespace lane::train {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A metrics record's wall-clock time, Unix seconds to the millisecond (the dashboard aligns runs on it).
double record_time() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return static_cast<double>(ms.count()) / 1000.0;
}

data::LoaderOptions loader_options(const TrainConfig& c, const dist::Communicator& comm, bool validation) {
  data::PipelineOptions p;
  p.data_dir = c.data_dir;
  p.label_files = validation ? c.val_labels : c.train_labels;
  p.input_height = c.model.input_height;
  p.input_width = c.model.input_width;
  p.crop_top = c.crop_top;
  p.lane_slots = c.model.num_classes - 1;
  p.augment = c.augment && !validation;
  p.shuffle = !validation;
  p.seed = c.seed;
  p.rank = comm.rank();
  p.world_size = comm.size();
  p.use_workers = c.use_workers;
  p.num_workers = c.num_workers;
  p.skip_bad = c.skip_bad;
  return {p, validation ? c.val_batch_size : c.batch_size, /*drop_last=*/!validation};
}

std::string hms(double seconds) {
  const auto s = static_cast<int64_t>(seconds < 0 ? 0 : seconds);
  return fmt::format("{:02d}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
}

void set_lr(torch::optim::SGD& opt, double lr) {
  for (auto& group : opt.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
}

// How the loop ends.
enum class Ending { kNone, kPreempted, kFinished, kDiverged };

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

// Device and precision (exit 2 with the fix when the request cannot be met on this rank).
struct Compute {
  DeviceChoice choice;
  Precision precision = Precision::kFp32;
  MathMode math;
  torch::Device device = torch::kCPU;
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;
  OnednnBf16 onednn = OnednnBf16::kNotCapped;  // CPU bf16: settle_onednn_bf16's finding
};

Compute choose_compute(const TrainConfig& cfg, OnednnBf16 onednn) {
  Compute c;
  c.onednn = onednn;
  c.choice = select_device(cfg.device, cfg.device_source);
  const bool has_bf16 = c.choice.kind == DeviceKind::kCuda ? gpu_has_bf16(c.choice.index)
                                                          : cpu_bf16_by_default(cpu_has_native_bf16(), onednn);
  c.precision = resolve_precision(cfg.precision, cfg.precision_source, c.choice, has_bf16);
  c.math = apply_float32_math(c.choice, c.precision);  // fp32 means fp32 (no TF32)
  c.device = torch_device(c.choice);
  c.memory_format = resolve_memory_format(cfg.memory_format, c.choice);
  return c;
}

// The data: every rank reads its own shard; validation only with --use-val.
struct Loaders {
  std::unique_ptr<data::TusimpleLoader> train, val;
  int64_t per_epoch = 0;    // batches per epoch
  int64_t total_steps = 0;  // of the whole run (and of the LR schedule)
};

Loaders open_loaders(const TrainConfig& cfg, const dist::Communicator& comm) {
  Loaders l;
  l.train = std::make_unique<data::TusimpleLoader>(loader_options(cfg, comm, false));
  if (cfg.use_val) l.val = std::make_unique<data::TusimpleLoader>(loader_options(cfg, comm, true));
  l.per_epoch = static_cast<int64_t>(l.train->batches_per_epoch());
  if (l.per_epoch == 0)
    throw UsageError(fmt::format("BATCH_SIZE / --batch-size: {} is larger than the {} training frames per rank",
                                 cfg.batch_size, l.train->shard_size()));
  l.total_steps = l.per_epoch * cfg.epochs;
  if (cfg.max_steps > 0) l.total_steps = std::min(l.total_steps, cfg.max_steps);
  return l;
}

// Whether the run continues the checkpoint in its output dir. --resume on: always (it must exist).
// auto: when it exists, and only if its run had the same training settings (else exit 2 with the
// differences: a restarted job never continues another run, nor overwrites it); none: step 0.
// Every rank looks at the file; they agree (allreduce_min), so no rank resumes alone. Returns the
// checkpoint, read once (null: start at step 0).
std::unique_ptr<CheckpointFile> continues_checkpoint(const TrainConfig& cfg, const RunLayout& layout,
                                                     dist::Communicator& comm, bool lead) {
  const fs::path file = layout.latest_checkpoint();
  if (cfg.resume == ResumeMode::kOff) return nullptr;
  if (cfg.resume == ResumeMode::kOn) {
    if (!fs::exists(file)) throw UsageError(fmt::format("{}: no checkpoint at '{}'", cfg.resume_source, file.string()));
    return std::make_unique<CheckpointFile>(file);
  }
  std::unique_ptr<CheckpointFile> checkpoint;
  if (fs::exists(file)) {
    checkpoint = std::make_unique<CheckpointFile>(file);
    const auto differences = training_differences(checkpoint->settings(), cfg);
    if (!differences.empty()) {
      std::string list;
      for (const auto& d : differences) list += (list.empty() ? "" : "; ") + d;
      throw UsageError(fmt::format(
          "{} is auto: '{}' was saved by a run with other training settings ({}); to continue that run, give "
          "its settings; to start a new one, use another --output-dir / OUTPUT_DIR (or --resume off / "
          "RESUME=off to train over it)",
          cfg.resume_source, file.string(), list));
    }
  }
  const bool all = comm.allreduce_min(checkpoint ? 1 : 0) == 1;
  if (lead && !all)
    std::cout << fmt::format("scnn-train: auto-resume: no checkpoint in '{}' yet: starting at step 0\n",
                             layout.dir.string());
  if (!all) checkpoint.reset();
  return checkpoint;
}

// Where the run starts: step 0, or the latest checkpoint (continues_checkpoint; restored on the
// CPU). Then the same starting point on every rank (parameters, BN buffers, momentum),
// Horovod-style; the broadcasts work on host memory, so they run before the move to the device.
struct StartPoint {
  TrainingProgress progress;
  bool resumed = false;  // from the checkpoint in the output dir
};
StartPoint start_point(const TrainConfig& cfg, const RunLayout& layout, dist::Communicator& comm, bool lead,
                       model::Scnn& net, torch::optim::SGD& opt, torch::Device device) {
  TrainingProgress progress;
  const auto checkpoint = continues_checkpoint(cfg, layout, comm, lead);  // freed once loaded
  if (checkpoint != nullptr) {
    // The frames' crop is the data's geometry: the rest of the run must see the same frames.
    const int crop = checkpoint->info().crop_top;
    if (crop != cfg.crop_top)
      throw UsageError(fmt::format("--resume: the checkpoint was trained with --crop-top {}, this run asks for {}; "
                                   "resume with --crop-top {}",
                                   crop, cfg.crop_top, crop));
    progress = checkpoint->load_into(net, &opt);
  }
  dist::broadcast_module(comm, *net);
  dist::broadcast_optimizer_state(comm, opt);
  net->to(device);
  move_optimizer_state(opt, device);
  return {progress, checkpoint != nullptr};
}

// What the named steps below share; fixed once the run is set up.
struct Run {
  const TrainConfig& cfg;
  dist::Communicator& comm;
  bool lead;  // rank 0: the only rank that writes files and prints
  model::Scnn& net;
  torch::optim::SGD& opt;
  CheckpointModelInfo info;
  nlohmann::json settings;  // settings_record(cfg), in every checkpoint
  RunLayout layout;
  MetricsLog* metrics;  // rank 0 only
  int64_t total_steps;
  Clock::time_point start;
  int64_t first_step;  // where this process started (> 0 when resumed)
  bool resumed;        // from the checkpoint in the output dir
};

// The run's first lines (rank 0): what trains on what, then every resolved setting.
void announce(const Run& run, const Compute& compute, const data::TusimpleLoader& train, int64_t per_epoch) {
  const TrainConfig& cfg = run.cfg;
  std::cout << fmt::format(
      "scnn-train: model {} ({} parameters, {}x{}, {} classes), {} frames, {} rank(s), {} batches/epoch, "
      "{} steps, {} {} {}{}{}\n",
      cfg.model_name, run.net->parameter_count(), cfg.model.input_height, cfg.model.input_width,
      cfg.model.num_classes, train.dataset_size(), run.comm.size(), per_epoch, run.total_steps,
      compute.choice.describe(), precision_name(compute.precision), memory_format_name(compute.memory_format),
      compute.choice.kind == DeviceKind::kCuda ? fmt::format(" ({})", compute.math.describe()) : "",
      run.resumed ? fmt::format(", resuming at step {}", run.first_step) : "");
  // The note when it matters: bf16 on the CPU, or fp32 because of the cap.
  if (compute.choice.kind == DeviceKind::kCpu && !onednn_isa_note().empty() &&
      (compute.precision == Precision::kBf16 || compute.onednn == OnednnBf16::kCapped))
    std::cout << "scnn-train: note: " << onednn_isa_note()
              << (compute.onednn == OnednnBf16::kCapped && cfg.precision.empty()
                      ? "; so the default precision is fp32 (bf16 on the capped kernels is slower than fp32; "
                        "--precision bf16 trains in bf16 anyway)"
                      : "")
              << "\n";
  std::cout << "scnn-train: settings " << settings_line(cfg) << "\n";
  if (cfg.max_steps > 0 && cfg.max_steps > run.total_steps)  // the epochs end the run first
    std::cout << fmt::format("scnn-train: note: --max-steps {} is more than {} epoch(s) x {} batches = {} steps, where "
                             "the run ends; raise --epochs / EPOCHS to train longer\n",
                             cfg.max_steps, cfg.epochs, per_epoch, run.total_steps);
  // Flushed: through a pipe (a job's log) these lines would otherwise wait for the first log line.
  if (run.first_step >= run.total_steps)  // a restarted job whose training had finished
    std::cout << fmt::format("scnn-train: the run in '{}' has finished its {} steps: nothing left to train (what "
                             "follows training runs again); to train again, use another output dir",
                             run.layout.dir.string(), run.total_steps);
  else
    std::cout << fmt::format("scnn-train: step {} of {} under way (a progress line every {} steps)",
                             run.first_step + 1, run.total_steps, cfg.log_every);
  std::cout << std::endl;  // flushed
}

// Checkpoint: rank 0 saves the weights, optimiser state and progress (atomically).
void save_latest(const Run& run, const TrainingProgress& progress) {
  if (run.lead) save_checkpoint(run.layout.latest_checkpoint(), run.net, run.opt, progress, run.info, run.settings);
}

// Validation: every rank evaluates its shard (collective); rank 0 records and prints the
// numbers and keeps the best checkpoint (which updates progress.best_accuracy).
void validate_now(const Run& run, data::TusimpleLoader& val_loader, TrainingProgress& progress) {
  const auto m = validate(run.net, val_loader, run.cfg.crop_top, run.comm);
  if (!run.lead) return;
  run.metrics->write({std::string(MetricsRecord::kVal),
                      {{"step", progress.step}, {"epoch", progress.epoch}, {"accuracy", m.accuracy},
                       {"fp", m.fp}, {"fn", m.fn}, {"frames", m.frames}, {"time", record_time()}}});
  std::cout << fmt::format("validation at step {}: accuracy {:.4f} FP {:.4f} FN {:.4f} ({} frames)\n",
                           progress.step, m.accuracy, m.fp, m.fn, m.frames);
  std::cout.flush();  // seen as it happens through a pipe (lanectl logs, bench/convergence)
  if (m.accuracy > progress.best_accuracy) {
    progress.best_accuracy = m.accuracy;
    save_checkpoint(run.layout.best_checkpoint(), run.net, run.opt, progress, run.info, run.settings);
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

// Logging (collective): one metrics record and one progress line on rank 0. Returns the mean loss;
// a non-finite one is neither logged nor printed (the caller stops the run: diverged()).
double log_progress(const Run& run, LogWindow& window, const TrainingProgress& progress, double lr) {
  const LogWindow::Mean mean = window.take(run.comm);
  const auto& loss = mean.loss;
  for (const double part : loss)
    if (!std::isfinite(part)) return part;
  if (!run.lead) return loss[0];
  run.metrics->write({std::string(MetricsRecord::kTrain),
                      {{"step", progress.step}, {"epoch", progress.epoch}, {"loss", loss[0]},
                       {"seg_loss", loss[1]}, {"exist_loss", loss[2]}, {"lr", lr},
                       {"images_per_s", mean.images_per_s}, {"time", record_time()}}});
  const double elapsed = std::chrono::duration<double>(Clock::now() - run.start).count();
  const double per_step = elapsed / static_cast<double>(progress.step - run.first_step);
  std::cout << fmt::format("epoch {}/{} step {}/{} loss {:.4f} (seg {:.4f} exist {:.4f}) lr {:.5f} "
                           "{:.2f} img/s ETA {}\n",
                           progress.epoch + 1, run.cfg.epochs, progress.step, run.total_steps, loss[0], loss[1],
                           loss[2], lr, mean.images_per_s,
                           hms(per_step * static_cast<double>(run.total_steps - progress.step)));
  std::cout.flush();
  return loss[0];
}

// What one step needs besides the run.
struct Stepper {
  const LrSchedule& schedule;
  const ScnnLoss& loss_fn;
  dist::GradientSynchronizer& sync;
  MixedPrecision& amp;
};

// The loop's running state.
struct LoopState {
  TrainingProgress progress;
  int64_t validated_at = -1;  // the step of the last validation
  double lr = 0;
  double last_loss = 0;
  int64_t logged_at = -1;          // the step of the last log line with a finite loss
  double last_finite_loss = 0;     // its loss
  bool diverged = false;           // the last log window's loss was not finite: the run stops
};

// Records a log window's mean loss; false (diverged) when it is NaN or infinite.
bool record_loss(LoopState& st, double loss) {
  st.last_loss = loss;
  if (!std::isfinite(loss)) {
    st.diverged = true;
    return false;
  }
  st.logged_at = st.progress.step;
  st.last_finite_loss = loss;
  return true;
}

// The error of a diverged run: where, the last good numbers, what to change, what is kept.
Error divergence_error(const Run& run, const LoopState& st) {
  const std::string last = st.logged_at < 0 ? "no finite loss was logged"
                                            : fmt::format("the last finite loss was {:.4f} at step {}",
                                                          st.last_finite_loss, st.logged_at);
  return Error(fmt::format(
      "the training loss became {} by step {} ({}); the run stops. Lower the learning rate (--lr, now {}), add "
      "warm-up (--warmup-steps), or train in full precision (PRECISION=fp32; with fp16, bf16 is steadier). Kept: "
      "the metrics and curves up to step {} ({}, {}); the latest checkpoint ({}), if any, is the last one saved "
      "before",
      std::isnan(st.last_loss) ? "NaN" : "infinite", st.progress.step, last, run.cfg.lr,
      std::max<int64_t>(st.logged_at, 0), run.layout.metrics().string(), run.layout.curves().string(),
      run.layout.latest_checkpoint().string()));
}

// One optimiser step on a batch, then the log line every --log-every steps and at the last step
// (the only place that reads the loss), and the checkpoint every --checkpoint-every steps.
void take_step(const Run& run, const Stepper& s, const data::DeviceBatch& next, LogWindow& window, LoopState& st) {
  const auto& batch = next.batch;
  st.lr = s.schedule.at(st.progress.step);
  set_lr(run.opt, st.lr);
  const double normaliser = global_seg_normaliser(s.loss_fn, run.comm, next.host_seg);
  const LossParts loss = train_step(run.net, run.opt, s.loss_fn, s.sync, run.comm, s.amp, batch.images, batch.seg,
                                    batch.exist, normaliser);
  ++st.progress.step;
  ++st.progress.batch_in_epoch;
  window.add(loss, batch.images.size(0) * run.comm.size());
  if (st.progress.step % run.cfg.log_every == 0 || st.progress.step == run.total_steps)
    if (!record_loss(st, log_progress(run, window, st.progress, st.lr))) return;  // weights not saved
  if (st.progress.step % run.cfg.checkpoint_every == 0) save_latest(run, st.progress);
}

// The loop: stop? (preempted or finished) -> end of epoch (validate) -> next batch -> step.
Ending train_loop(const Run& run, const Stepper& s, EpochBatches& epoch, data::TusimpleLoader* val_loader,
                  LogWindow& window, LoopState& st) {
  run.net->train();
  for (;;) {
    // A stop signal (SIGTERM, SIGINT) may reach only some ranks: all stop at the step where any
    // has one (one 8-byte allreduce per step).
    const bool signalled = run.comm.allreduce_min(stop_signal() != 0 ? 0 : 1) == 0;
    if (signalled && st.progress.step < run.total_steps) return Ending::kPreempted;
    const Ending ending = ending_now(run.cfg, st.progress, run.total_steps, epoch.over(st.progress));
    if (ending == Ending::kPreempted) return ending;
    if (epoch.over(st.progress)) {  // count the epoch and validate
      epoch.close(st.progress);
      if (val_loader) {
        validate_now(run, *val_loader, st.progress);
        st.validated_at = st.progress.step;
      }
    }
    if (ending == Ending::kFinished) return ending;
    // The next batch (on the device; its host target gives the loss normaliser). None left: the
    // epoch is over (a shard shorter than --batch-size x batches/epoch), closed above.
    if (const auto next = epoch.next(st.progress)) take_step(run, s, *next, window, st);
    if (st.diverged) return Ending::kDiverged;
  }
}

// After the loop: a finished run validates its final weights once more unless the loop just did:
// a step budget (--max-steps) that ends inside an epoch leaves that epoch unclosed and
// unvalidated, and the best checkpoint and the last validation line must describe the weights
// the run ends with. A preempted run does not: the resumed run validates when it closes the
// epoch. Then the last partial log window (a preempted run's, or a run whose last epoch ran out
// of batches) and the final checkpoint.
void wind_up(const Run& run, Ending ending, data::TusimpleLoader* val_loader, LogWindow& window, LoopState& st) {
  if (ending == Ending::kDiverged) return;  // the weights are not finite: nothing to validate or save
  if (ending == Ending::kFinished && val_loader && st.validated_at != st.progress.step)
    validate_now(run, *val_loader, st.progress);
  if (window.steps() > 0 && !record_loss(st, log_progress(run, window, st.progress, st.lr))) return;
  save_latest(run, st.progress);
}

// Rank 0's closing lines after the curves are drawn.
void report(const Run& run, bool stopped, int64_t step, size_t skipped_images, const MixedPrecision& amp) {
  if (skipped_images > 0) std::cout << fmt::format("skipped {} unreadable images\n", skipped_images);
  if (amp.scaler && amp.scaler->skipped_steps() > 0)
    std::cout << fmt::format("fp16: {} step(s) skipped for non-finite gradients, loss scale {}\n",
                             amp.scaler->skipped_steps(), amp.scaler->current_scale());
  std::cout << fmt::format("{} at step {}: checkpoint {}, metrics {}, curves {}\n", stopped ? "stopped" : "finished",
                           step, run.layout.latest_checkpoint().string(), run.layout.metrics().string(),
                           run.layout.curves().string());
}

}  // namespace

TrainingResult run_training(const TrainConfig& cfg, const EndOfTraining& end_of_training) {
  auto comm = dist::create_communicator();
  const bool lead = comm->rank() == 0;
  if (cfg.threads > 0) torch::set_num_threads(cfg.threads);
  torch::manual_seed(static_cast<uint64_t>(cfg.seed));
  // Where oneDNN is capped (AMX, oneDNN < 3), the compute as if its AMX kernels pass the check.
  const bool check_amx = onednn_bf16_check_wanted(onednn_isa_capped(), cfg.precision, cfg.device);
  Compute compute = choose_compute(cfg, check_amx ? OnednnBf16::kAmx : OnednnBf16::kNotCapped);

  // Model and optimiser, built and restored on the CPU, then moved to the device.
  model::Scnn net(cfg.model);
  // Before any data is read: a run that cannot fit stops here (exit 2) with the fix.
  check_training_memory(cfg, compute.choice, compute.precision, *net, *comm);
  if (check_amx) {
    // Before any oneDNN kernel runs here (device_setup.h); every rank takes the same decision.
    compute.onednn = settle_onednn_bf16(cfg.model, cfg.batch_size, cfg.threads, compute.memory_format,
                                        [&](bool passed) { return comm->allreduce_min(passed ? 1 : 0) == 1; });
    if (compute.onednn == OnednnBf16::kCapped) {
      const Compute capped = choose_compute(cfg, OnednnBf16::kCapped);  // the default becomes fp32
      if (capped.precision != compute.precision) {
        compute = capped;
        check_training_memory(cfg, compute.choice, compute.precision, *net, *comm);
      }
    }
  }
  MixedPrecision amp(compute.device.type(), compute.precision);
  const RunLayout layout{cfg.output_dir};
  if (lead) fs::create_directories(layout.dir);
  if (lead) remove_stale_checkpoint_temporaries(layout.dir);  // left by a killed run
  net->set_batch_norm_frozen(cfg.freeze_bn);
  if (!cfg.pretrained.empty()) model::load_vgg16_bn_pretrained(net, cfg.pretrained);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(cfg.lr)
                                               .momentum(cfg.momentum)
                                               .weight_decay(cfg.weight_decay)
                                               .nesterov(cfg.nesterov));
  Loaders loaders = open_loaders(cfg, *comm);
  const LrSchedule schedule{cfg.lr, cfg.warmup_steps, loaders.total_steps, cfg.poly_power};
  LoopState st;
  const StartPoint start = start_point(cfg, layout, *comm, lead, net, opt, compute.device);
  st.progress = start.progress;
  const bool resumed = start.resumed;
  net->set_memory_format(compute.memory_format);
  // CUDA parameters make the synchronizer reduce with NCCL (bootstrapped over this communicator).
  dist::GradientSynchronizer sync(*comm, net->parameters(), dist::kDefaultFusionThresholdBytes);
  const ScnnLoss loss_fn(cfg.model.num_classes, cfg.background_weight, cfg.exist_weight, compute.device);
  data::DeviceLoader batches(*loaders.train, compute.device);
  std::unique_ptr<MetricsLog> metrics;
  if (lead) metrics = std::make_unique<MetricsLog>(layout.metrics(), resumed ? st.progress.step : -1, cfg.tensorboard);

  const Run run{cfg, *comm, lead, net, opt, {cfg.model, cfg.crop_top}, settings_record(cfg), layout,
                metrics.get(), loaders.total_steps, Clock::now(), st.progress.step, resumed};
  if (lead) announce(run, compute, *loaders.train, loaders.per_epoch);
  EpochBatches epoch(batches, loaders.per_epoch);
  LogWindow window(compute.device, run.start);
  st.lr = schedule.at(st.progress.step);
  const Ending ending = train_loop(run, {schedule, loss_fn, sync, amp}, epoch, loaders.val.get(), window, st);
  wind_up(run, ending, loaders.val.get(), window, st);

  const TrainingResult result{layout, st.progress.step, st.last_loss, st.progress.best_accuracy};
  if (lead) {
    plot_training_curves(layout.curves(), read_curves(layout.metrics()));
    metrics->image(st.progress.step, "training_curves", layout.curves());
  }
  if (st.diverged) throw divergence_error(run, st);  // every rank: the mean loss is the same on all
  if (lead) {
    report(run, ending == Ending::kPreempted, st.progress.step, loaders.train->skipped_images(), amp);
    if (ending == Ending::kFinished && end_of_training) end_of_training(cfg, result);
  }
  comm->barrier();
  if (ending == Ending::kPreempted && stop_signal() != 0) {
    if (lead)
      std::cout << fmt::format("stopped by {} after step {}: checkpoint saved; {}\n",
                               stop_signal() == SIGINT ? "SIGINT" : "SIGTERM", st.progress.step,
                               cfg.resume == ResumeMode::kAuto ? "the same command continues from it (auto-resume)"
                                                    : "continue with --resume")
                << std::flush;
    die_by_stop_signal();
  }
  return result;
}

}  // namespace lane::train
