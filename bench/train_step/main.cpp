// bench_train_step: images/s of one SGD training step (forward + loss + backward + step) of the
// full SCNN on CPU, with the fast message passing against the naive slice-by-slice baseline
// (narrow + conv2d + cat per slice) in the same run; also the message-passing module alone.
// Usage: bench_train_step [--steps N] [--threads T] [--batch B] [--sizes 288x512,368x640]
// Precision mode (issue 12): bench_train_step --precision fp32,bf16 [--device cpu|cuda]
//   [--batch B[,B2,...]] [--memory-format auto|channels_last|contiguous (the trainer's setting;
//   auto: channels_last on CUDA; --channels-last = channels_last)] [--width-mult W]
//   [--largest-batch] [--cudnn-benchmark on|off (CUDA, default on; printed in the header, as
//   eager_scnn.py prints its own)]: the trainer's own step (train_step: autocast, float32 loss,
//   loss scaling for fp16) per batch and precision, against fp32 in the same run, with the loss
//   after the timed steps on one fixed batch; a batch that runs out of CUDA memory is reported as
//   such and the next one runs; --largest-batch (CUDA) also finds the largest batch that fits by
//   doubling and times it.
// scripts/gpu-check: --batch max (per precision, the largest batch that fits on the GPU: doubling,
//   then bisection, until CUDA runs out of memory; then timed), --json FILE (every row also as a
//   JSON line), --trace FILE (a Kineto chrome trace of 5 steps of the first precision; libtorch 2.x).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/autograd/profiler_kineto.h>
#endif

#include "train/dist/communicator.h"
#include "train/dist/gradient_sync.h"
#include "train/model/scnn.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/mixed_precision.h"
#include "train/trainer/scnn_loss.h"
#include "train/trainer/train_step.h"

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_mib() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Seconds per training step (after one warm-up step).
double time_train_step(lane::model::Scnn& net, int batch, int steps) {
  const auto& c = net->config();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
  const lane::train::ScnnLoss loss_fn(c.num_classes, 0.4, 0.1);
  auto images = torch::randn({batch, 3, c.input_height, c.input_width});
  auto seg = torch::randint(0, c.num_classes, {batch, c.input_height, c.input_width}, torch::kInt64);
  auto exist = torch::randint(0, 2, {batch, c.num_classes - 1}).to(torch::kFloat32);
  auto step = [&] {
    auto l = loss_fn(net->forward(images), seg, exist);
    opt.zero_grad();
    l.total.backward();
    opt.step();
  };
  step();
  const auto t0 = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  return std::chrono::duration<double>(Clock::now() - t0).count() / steps;
}

// Seconds per forward + backward of the message passing alone on a [B, 128, H/8, W/8] map.
double time_message_passing(lane::model::MessagePassing& mp, int batch, int h, int w, int reps) {
  auto x = torch::randn({batch, 128, h / 8, w / 8}).requires_grad_(true);
  auto run = [&] {
    mp->forward(x).sum().backward();
  };
  run();
  const auto t0 = Clock::now();
  for (int i = 0; i < reps; ++i) run();
  return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

struct StepResult {
  double seconds = 0, cpu_seconds = 0, loss = 0;
};

// CPU time of the whole process: steadier than wall time on a shared, loaded machine.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

void sync_device(const torch::Device& d) {
  if (d.is_cuda()) torch::cuda::synchronize(d.index());
}

// The trainer's device choice for a torch device: the GPU of this process (index 0), or the CPU.
lane::train::DeviceChoice choice_of(const torch::Device& device) {
  return device.is_cuda() ? lane::train::DeviceChoice{lane::train::DeviceKind::kCuda, 0} : lane::train::DeviceChoice{};
}

// The trainer's step (train_step) at `precision` on a fixed random batch: seconds per step after
// two warm-up steps, and the loss of the last step.
StepResult time_precision_step(const lane::model::ScnnConfig& c, torch::Device device, lane::train::Precision p,
                               int batch, int steps, at::MemoryFormat fmt) {
  torch::manual_seed(0);
  auto parts = lane::train::make_step_parts(c, device);  // the loss on `device`, as the trainer's
  auto& net = parts.net;
  auto& opt = *parts.opt;
  const auto& loss_fn = parts.loss;
  net->set_memory_format(fmt);  // as the trainer does: the batch stays NCHW, forward() lays it out
  auto comm = lane::dist::create_single_process_communicator();
  lane::dist::GradientSynchronizer sync(*comm, net->parameters(), lane::dist::kDefaultFusionThresholdBytes);
  // The trainer's float32 math for p: strict fp32 (no TF32) for fp32, TF32 for tf32.
  lane::train::apply_float32_math(choice_of(device), p);
  lane::train::MixedPrecision amp(device.type(), p);
  torch::manual_seed(1);
  const auto images = torch::randn({batch, 3, c.input_height, c.input_width}).to(device);
  const auto host_seg = torch::randint(0, c.num_classes, {batch, c.input_height, c.input_width}, torch::kInt64);
  const auto seg = host_seg.to(device);
  const auto exist = torch::randint(0, 2, {batch, c.num_classes - 1}).to(torch::kFloat32).to(device);
  const double normaliser = lane::train::global_seg_normaliser(loss_fn, *comm, host_seg);
  lane::train::LossParts last;
  auto step = [&] { last = lane::train::train_step(net, opt, loss_fn, sync, *comm, amp, images, seg, exist, normaliser); };
  step();
  step();
  sync_device(device);
  const auto t0 = Clock::now();
  const double c0 = process_cpu_seconds();
  for (int i = 0; i < steps; ++i) step();
  sync_device(device);
  StepResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count() / steps;
  r.cpu_seconds = (process_cpu_seconds() - c0) / steps;
  r.loss = last.total.item<double>();
  return r;
}

bool is_out_of_memory(const std::exception& e) {
  return std::string(e.what()).find("out of memory") != std::string::npos;
}

// cuDNN autotuning (--cudnn-benchmark on|off, default on for CUDA, like eager_scnn.py's
// torch.backends.cudnn.benchmark = True and the trainer's activate_device): the input shape is
// fixed, so the first steps pick the fastest convolution algorithms. Returns what to print.
std::string setup_cudnn_benchmark(const torch::Device& device, const std::string& request) {
  if (!device.is_cuda()) return "cuDNN benchmark n/a (cpu)";
  const bool on = request != "off";
  at::globalContext().setBenchmarkCuDNN(on);
  return std::string("cuDNN benchmark ") + (at::globalContext().benchmarkCuDNN() ? "on" : "off");
}

// ---- scripts/gpu-check: JSON lines, the largest batch per precision, a Kineto trace ----------

FILE* json_out = nullptr;  // --json FILE: one JSON object per measured row

void json_row(const char* kind, const std::string& size, const std::string& precision, int batch,
              const StepResult& r, double vs_fp32) {
  if (json_out == nullptr) return;
  std::fprintf(json_out,
               "{\"kind\":\"%s\",\"input\":\"%s\",\"precision\":\"%s\",\"batch\":%d,\"s_per_step\":%.6g,"
               "\"img_per_s\":%.6g,\"cpu_s_per_step\":%.6g,\"vs_fp32\":%.6g,\"loss\":%.6g}\n",
               kind, size.c_str(), precision.c_str(), batch, r.seconds, r.seconds > 0 ? batch / r.seconds : 0.0,
               r.cpu_seconds, vs_fp32, r.loss);
  std::fflush(json_out);
}

lane::train::Precision parse_precision(const std::string& name, const torch::Device& device) {
  return lane::train::resolve_precision(name, "--precision", choice_of(device), true);
}

bool fits(const lane::model::ScnnConfig& c, torch::Device device, lane::train::Precision p, int batch,
          at::MemoryFormat fmt) {
  try {
    time_precision_step(c, device, p, batch, 1, fmt);
    return true;
  } catch (const c10::OutOfMemoryError&) {
    return false;
  } catch (const std::exception& e) {
    if (!is_out_of_memory(e)) throw;
    return false;
  }
}

// The largest batch whose training step fits: doubling from `start` until one does not fit, then
// bisection to within 1/16 of the batch (cuDNN autotuning off while searching: every trial batch
// is a new shape).
int find_largest_batch(const lane::model::ScnnConfig& c, torch::Device device, lane::train::Precision p, int start,
                       at::MemoryFormat fmt) {
  const bool autotune = at::globalContext().benchmarkCuDNN();
  at::globalContext().setBenchmarkCuDNN(false);
  int good = 0, bad = 0;
  for (int b = std::max(1, start); b <= 65536; b *= 2) {
    if (!fits(c, device, p, b, fmt)) {
      bad = b;
      break;
    }
    good = b;
  }
  while (bad > 0 && bad - good > std::max(1, good / 16)) {
    const int mid = good + (bad - good) / 2;
    (fits(c, device, p, mid, fmt) ? good : bad) = mid;
  }
  at::globalContext().setBenchmarkCuDNN(autotune);
  return good;
}

// --batch max: per precision, the largest batch that fits, then timed.
int largest_batch_mode(const std::string& device_text, const std::string& precisions, const std::string& sizes,
                       int steps, at::MemoryFormat fmt, double width_mult) {
  const torch::Device device(device_text);
  if (!device.is_cuda()) {
    std::fprintf(stderr, "bench_train_step: --batch max needs --device cuda (it searches until CUDA runs out of memory)\n");
    return 2;
  }
  std::printf("SCNN train_step on %s at the largest batch that fits, per precision, %d timed step(s)\n",
              device_text.c_str(), steps);
  std::printf("%-9s %-6s %6s %12s %10s\n", "input", "prec", "batch", "s/step", "img/s");
  std::stringstream size_list(sizes);
  for (std::string size; std::getline(size_list, size, ',');) {
    lane::model::ScnnConfig c;
    std::sscanf(size.c_str(), "%dx%d", &c.input_height, &c.input_width);
    c.width_mult = width_mult;
    std::stringstream list(precisions);
    for (std::string name; std::getline(list, name, ',');) {
      const auto p = parse_precision(name, device);
      const int b = find_largest_batch(c, device, p, 24, fmt);
      if (b == 0) {
        std::printf("%-9s %-6s %6s (not even batch 1 fits)\n", size.c_str(), name.c_str(), "-");
        continue;
      }
      StepResult r;
      try {  // autotuning may pick algorithms with larger workspaces than the search did
        r = time_precision_step(c, device, p, b, steps, fmt);
      } catch (const std::exception& e) {
        if (!is_out_of_memory(e)) throw;
        std::printf("%-9s %-6s %6d out of memory once cuDNN autotuning was on\n", size.c_str(), name.c_str(), b);
        continue;
      }
      std::printf("%-9s %-6s %6d %12.4f %10.2f\n", size.c_str(), name.c_str(), b, r.seconds, b / r.seconds);
      json_row("largest_batch", size, name, b, r, 0.0);
    }
  }
  return 0;
}

// --trace FILE: a Kineto (PyTorch profiler) chrome trace of 5 training steps (2 warm-up + 3) of the
// first precision at the first size, after one untraced run of the same shape (cuDNN autotuning).
int trace_mode(const std::string& device_text, const std::string& precisions, const std::string& sizes, int batch,
               at::MemoryFormat fmt, double width_mult, const std::string& path) {
#if TORCH_VERSION_MAJOR >= 2
  const torch::Device device(device_text);
  lane::model::ScnnConfig c;
  std::sscanf(sizes.c_str(), "%dx%d", &c.input_height, &c.input_width);
  c.width_mult = width_mult;
  const std::string name = precisions.substr(0, precisions.find(','));
  const auto p = parse_precision(name, device);
  time_precision_step(c, device, p, batch, 1, fmt);
  namespace prof = torch::autograd::profiler;
  std::set<torch::profiler::impl::ActivityType> activities{torch::profiler::impl::ActivityType::CPU};
  if (device.is_cuda()) activities.insert(torch::profiler::impl::ActivityType::CUDA);
  const torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO);
  prof::prepareProfiler(config, activities);
  prof::enableProfiler(config, activities);
  const auto r = time_precision_step(c, device, p, batch, 3, fmt);
  auto result = prof::disableProfiler();
  result->save(path);
  std::printf("trace of 5 %s steps at %dx%d, batch %d (%.4f s/step while traced): %s\n", name.c_str(),
              c.input_height, c.input_width, batch, r.seconds, path.c_str());
  json_row("trace", sizes.substr(0, sizes.find(',')), name, batch, r, 0.0);
  return 0;
#else
  std::fprintf(stderr, "bench_train_step: --trace needs libtorch 2.x (Kineto); this is %s\n", TORCH_VERSION);
  return 2;
#endif
}

// One row of precision mode: the step at batch b, or a line saying the batch did not fit.
void precision_row(const lane::model::ScnnConfig& c, const std::string& size, const torch::Device& device,
                   const std::string& name, int b, int steps, at::MemoryFormat fmt, double& fp32_s) {
  const auto p = parse_precision(name, device);
  StepResult r;
  try {
    r = time_precision_step(c, device, p, b, steps, fmt);
  } catch (const std::exception& e) {
    if (!device.is_cuda() || !is_out_of_memory(e)) throw;
    std::printf("%-9s %-6s %6d   out of GPU memory\n", size.c_str(), name.c_str(), b);
    if (json_out != nullptr)
      std::fprintf(json_out, "{\"kind\":\"step_oom\",\"input\":\"%s\",\"precision\":\"%s\",\"batch\":%d}\n",
                   size.c_str(), name.c_str(), b);
    if (p == lane::train::Precision::kFp32) fp32_s = 0;
    return;
  }
  // The ratio is of CPU time on the CPU (load-independent), of wall time on a GPU.
  const double t = device.is_cuda() ? r.seconds : r.cpu_seconds;
  if (p == lane::train::Precision::kFp32) fp32_s = t;
  std::printf("%-9s %-6s %6d %12.4f %10.2f %12.4f %9.3fx %12.5f\n", size.c_str(), name.c_str(), b, r.seconds,
              b / r.seconds, r.cpu_seconds, fp32_s > 0 ? fp32_s / t : 0.0, r.loss);
  json_row("step", size, name, b, r, fp32_s > 0 ? fp32_s / t : 0.0);
}

int precision_mode(const std::string& device_text, const std::string& precisions, const std::string& sizes,
                   const std::vector<int>& batch_list, int steps, at::MemoryFormat fmt, double width_mult,
                   bool largest_batch, const std::string& cudnn_benchmark) {
  const torch::Device device(device_text);
  if (device.is_cuda() && !torch::cuda::is_available()) {
    std::fprintf(stderr, "bench_train_step: --device %s but this build/machine has no CUDA device\n",
                 device_text.c_str());
    return 2;
  }
  std::printf("SCNN (width %.3g) train_step on %s, %d timed step(s) after 2 warm-up, %s, %s; baseline: fp32 in "
              "this run\n",
              width_mult, device_text.c_str(), steps,
              fmt == at::MemoryFormat::ChannelsLast ? "channels_last (NHWC)" : "contiguous (NCHW)",
              setup_cudnn_benchmark(device, cudnn_benchmark).c_str());
  std::printf("%-9s %-6s %6s %12s %10s %12s %10s %12s\n", "input", "prec", "batch", "s/step", "img/s", "CPU-s/step",
              "vs fp32", "loss@end");
  std::stringstream size_list(sizes);
  for (std::string size; std::getline(size_list, size, ',');) {
    lane::model::ScnnConfig c;
    std::sscanf(size.c_str(), "%dx%d", &c.input_height, &c.input_width);
    c.width_mult = width_mult;
    std::vector<int> batches = batch_list;
    if (largest_batch && device.is_cuda()) {
      const int fits = find_largest_batch(c, device, lane::train::Precision::kBf16, batch_list.back(), fmt);
      if (fits > batch_list.back()) batches.push_back(fits);
    }
    for (int b : batches) {
      double fp32_s = 0;
      std::stringstream list(precisions);
      for (std::string name; std::getline(list, name, ',');) precision_row(c, size, device, name, b, steps, fmt, fp32_s);
    }
  }
  return 0;
}

// "24,48,96" → {24, 48, 96}; empty when an entry is not a positive number.
std::vector<int> parse_batches(const std::string& text) {
  std::vector<int> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 65536) return {};
    out.push_back(static_cast<int>(v));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2, threads = 1;
  std::vector<int> batches{4};
  std::string sizes = "288x512,368x640", precisions, device = "cpu", cudnn_benchmark = "on";
  std::string json_path, trace_path;  // scripts/gpu-check
  bool max_batch = false, largest_batch = false;
  std::string memory_format = "auto";
  double width_mult = 1.0;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--channels-last" || a == "--largest-batch") {
      if (a == "--channels-last") memory_format = "channels_last";
      else largest_batch = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "option %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--steps") steps = std::atoi(argv[i + 1]);
    else if (a == "--precision") precisions = argv[i + 1];
    else if (a == "--device") device = argv[i + 1];
    else if (a == "--width-mult") width_mult = std::atof(argv[i + 1]);
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--batch" && std::string(argv[i + 1]) == "max") max_batch = true;
    else if (a == "--json") json_path = argv[i + 1];
    else if (a == "--trace") trace_path = argv[i + 1];
    else if (a == "--batch" && (batches = parse_batches(argv[i + 1])).empty()) {
      std::fprintf(stderr, "--batch: '%s' is not max or a list of positive numbers (24 or 24,48,96)\n", argv[i + 1]);
      return 2;
    } else if (a == "--batch") continue;
    else if (a == "--memory-format" && !std::set<std::string>{"auto", "channels_last", "contiguous"}.count(argv[i + 1])) {
      std::fprintf(stderr, "--memory-format: '%s' is not auto, channels_last or contiguous\n", argv[i + 1]);
      return 2;
    } else if (a == "--memory-format") memory_format = argv[i + 1];
    else if (a == "--sizes") sizes = argv[i + 1];
    else if (a == "--cudnn-benchmark" && (std::string(argv[i + 1]) == "on" || std::string(argv[i + 1]) == "off"))
      cudnn_benchmark = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  torch::set_num_threads(threads);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows appear as they are measured
  if (!json_path.empty() && (json_out = std::fopen(json_path.c_str(), "a")) == nullptr) {
    std::fprintf(stderr, "bench_train_step: cannot write %s\n", json_path.c_str());
    return 2;
  }
  if (device != "cpu") setup_cudnn_benchmark(torch::Device(device), cudnn_benchmark);  // every mode
  const at::MemoryFormat fmt = lane::train::resolve_memory_format(memory_format, choice_of(torch::Device(device)));
  const int batch = batches.front();
  if (!trace_path.empty())
    return trace_mode(device, precisions.empty() ? "fp32" : precisions, sizes, batch, fmt, width_mult,
                      trace_path);
  if (max_batch) return largest_batch_mode(device, precisions.empty() ? "fp32" : precisions, sizes, steps, fmt,
                                           width_mult);
  if (!precisions.empty())
    return precision_mode(device, precisions, sizes, batches, steps, fmt, width_mult, largest_batch,
                          cudnn_benchmark);
  std::printf("SCNN full network, batch %d, %d thread(s), %d timed step(s) after 1 warm-up\n", batch, threads, steps);
  std::printf("%-9s %-26s %12s %10s %14s\n", "input", "what", "s/step", "img/s", "peak RSS MiB");
  std::stringstream list(sizes);
  for (std::string size; std::getline(list, size, ',');) {
    lane::model::ScnnConfig c;
    std::sscanf(size.c_str(), "%dx%d", &c.input_height, &c.input_width);
    torch::manual_seed(0);
    lane::model::Scnn net(c);
    double t[2];
    for (int naive = 0; naive < 2; ++naive) {
      net->message_passing()->naive = naive == 1;
      t[naive] = time_train_step(net, batch, steps);
      std::printf("%-9s %-26s %12.3f %10.3f %14.0f\n", size.c_str(),
                  naive ? "train step, naive MP" : "train step, fast MP", t[naive], batch / t[naive], peak_rss_mib());
      std::fflush(stdout);
    }
    std::printf("%-9s %-26s %12.3fx\n", size.c_str(), "speed-up fast/naive", t[1] / t[0]);
    double m[2];
    for (int naive = 0; naive < 2; ++naive) {
      net->message_passing()->naive = naive == 1;
      m[naive] = time_message_passing(net->message_passing(), batch, c.input_height, c.input_width, 3);
      std::printf("%-9s %-26s %12.3f %10.3f %14.0f\n", size.c_str(),
                  naive ? "MP fwd+bwd only, naive" : "MP fwd+bwd only, fast", m[naive], batch / m[naive],
                  peak_rss_mib());
    }
    std::printf("%-9s %-26s %12.3fx\n", size.c_str(), "MP speed-up fast/naive", m[1] / m[0]);
  }
  return 0;
}
