#include "train/trainer/device_setup.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "train/trainer/mixed_precision.h"

#ifdef LANE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

namespace lane::train {

bool build_has_cuda() {
#ifdef LANE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

DeviceEnvironment probe_device_environment(const EnvLookup& env) {
  DeviceEnvironment e;
  e.build_has_cuda = build_has_cuda();
  e.visible_gpus = e.build_has_cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
  e.cuda_visible_devices = env("CUDA_VISIBLE_DEVICES");
  if (auto r = env("OMPI_COMM_WORLD_LOCAL_RANK"))
    e.local_rank = static_cast<int>(parse_int(*r, "environment variable OMPI_COMM_WORLD_LOCAL_RANK", 0));
  if (auto s = env("OMPI_COMM_WORLD_LOCAL_SIZE"))
    e.local_size = static_cast<int>(parse_int(*s, "environment variable OMPI_COMM_WORLD_LOCAL_SIZE", 1));
  if (auto a = env("LANE_ALLOW_GPU_SHARING"))
    e.allow_gpu_sharing = parse_bool(*a, "environment variable LANE_ALLOW_GPU_SHARING");
  return e;
}

namespace {

std::string read_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string& isa_note() {
  static std::string note;
  return note;
}

// What cap_onednn_isa did, for settle_onednn_bf16.
struct IsaCap {
  std::string isa;      // "" when nothing was capped
  std::string version;  // oneDNN's, "2.6.3"
};
IsaCap& isa_cap() {
  static IsaCap cap;
  return cap;
}

// The check settle_onednn_bf16 runs in its child: 0 when every gradient of one bf16 forward and
// backward pass on random data is finite, 3 when one is not.
int bf16_pass_is_finite(const model::ScnnConfig& config, int batch, int threads, at::MemoryFormat memory_format) {
  if (threads > 0) torch::set_num_threads(threads);
  torch::manual_seed(1);
  model::Scnn net(config);
  net->set_memory_format(memory_format);
  net->train();
  model::ScnnOutput out;
  {
    AutocastScope autocast(torch::kCPU, Precision::kBf16);
    out = net->forward(torch::randn({batch, 3, config.input_height, config.input_width}));
  }
  const auto seg = out.seg_logits.to(torch::kFloat32), exist = out.exist_logits.to(torch::kFloat32);
  ((seg * torch::randn_like(seg)).mean() + (exist * torch::randn_like(exist)).mean()).backward();
  for (const auto& p : net->parameters())
    if (p.grad().defined() && !torch::isfinite(p.grad()).all().item<bool>()) return 3;
  return 0;
}

}  // namespace

bool cpu_has_native_bf16() { return cpu_flags_have_bf16(read_cpuinfo()); }

void cap_onednn_isa() {
  struct OnednnVersion {  // the leading fields of oneDNN's dnnl_version_t
    int major, minor, patch;
  };
  using VersionFn = const OnednnVersion* (*)();
  const auto version = reinterpret_cast<VersionFn>(dlsym(RTLD_DEFAULT, "dnnl_version"));
  const OnednnVersion* v = version ? version() : nullptr;
  const bool user_set = onednn_isa_set_by_user(std::getenv("ONEDNN_MAX_CPU_ISA"), std::getenv("DNNL_MAX_CPU_ISA"));
  const auto cap = onednn_isa_cap(v ? v->major : 0, cpu_flags_have(read_cpuinfo(), "amx_bf16"), user_set);
  if (!cap) return;
  setenv("ONEDNN_MAX_CPU_ISA", cap->c_str(), 1);
  isa_cap() = {*cap, fmt::format("{}.{}.{}", v->major, v->minor, v->patch)};
  isa_note() = fmt::format(
      "oneDNN {} on a CPU with AMX: its CPU kernels are capped at {} (some of its AMX bf16 kernels compute "
      "non-finite gradients); ONEDNN_MAX_CPU_ISA set by hand overrides",
      isa_cap().version, *cap);
}

const std::string& onednn_isa_note() { return isa_note(); }

bool onednn_isa_capped() { return !isa_cap().isa.empty(); }

int status_of_child(const std::function<int()>& body) {
  std::fflush(nullptr);  // what this process has buffered is not written twice
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int code = 125;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);  // no atexit handlers, no destructors of the parent's objects
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

OnednnBf16 settle_onednn_bf16(const model::ScnnConfig& model, int batch, int threads, at::MemoryFormat memory_format,
                              const std::function<bool(bool)>& agree) {
  const IsaCap cap = isa_cap();
  if (cap.isa.empty()) return OnednnBf16::kNotCapped;
  const auto started = std::chrono::steady_clock::now();
  const int status = status_of_child([&] {
    unsetenv("ONEDNN_MAX_CPU_ISA");  // the child's oneDNN has not read it yet
    return bf16_pass_is_finite(model, batch, threads, memory_format);
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const bool everywhere = agree(status == 0);
  if (status == 0 && everywhere) {
    unsetenv("ONEDNN_MAX_CPU_ISA");
    isa_cap().isa.clear();
    isa_note() = fmt::format(
        "oneDNN {} on a CPU with AMX: its AMX bf16 kernels passed a check on this model's shapes (one forward "
        "and backward pass at batch {} on random data, {:.1f} s: every gradient finite), so they train; "
        "ONEDNN_MAX_CPU_ISA set by hand overrides",
        cap.version, batch, seconds);
    return OnednnBf16::kAmx;
  }
  isa_note() = fmt::format(
      "oneDNN {} on a CPU with AMX: its CPU kernels are capped at {}, as its AMX bf16 kernels {} on this model's "
      "shapes (one forward and backward pass at batch {} on random data, {:.1f} s); ONEDNN_MAX_CPU_ISA set by hand "
      "overrides",
      cap.version, cap.isa,
      status == 0   ? "passed here but not on another rank"
      : status == 3 ? "computed non-finite gradients"
                    : fmt::format("could not be checked (exit status {})", status),
      batch, seconds);
  return OnednnBf16::kCapped;
}

bool gpu_has_bf16(int index) {
#ifdef LANE_WITH_CUDA
  if (index < 0) return false;
  return at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index))->major >= 8;
#else
  return false;
#endif
}

torch::Device torch_device(const DeviceChoice& choice) {
  if (choice.kind == DeviceKind::kCpu) return torch::Device(torch::kCPU);
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(choice.index));
}

std::optional<uint64_t> gpu_free_memory(const DeviceChoice& choice) {
  if (choice.kind == DeviceKind::kCpu) return std::nullopt;
#ifdef LANE_WITH_CUDA
  c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(choice.index));
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the error so that later CUDA calls do not report it
    return std::nullopt;
  }
  return static_cast<uint64_t>(free);
#else
  return std::nullopt;
#endif
}

void activate_device(const DeviceChoice& choice) {
  if (choice.kind == DeviceKind::kCpu) return;
#ifdef LANE_WITH_CUDA
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(choice.index));
  at::globalContext().setBenchmarkCuDNN(true);
#else
  throw Error(fmt::format("{} chosen in a build without CUDA", choice.describe()));
#endif
}

MathMode apply_float32_math(const DeviceChoice& choice, Precision precision) {
  const MathMode mode = float32_math(choice, precision);
#ifdef LANE_WITH_CUDA
  if (choice.kind == DeviceKind::kCuda) {
    at::globalContext().setAllowTF32CuDNN(mode.allow_tf32_cudnn);
    at::globalContext().setAllowTF32CuBLAS(mode.allow_tf32_cublas);
  }
#endif
  return mode;
}

DeviceChoice select_device(const std::string& request, const std::string& source) {
  const DeviceChoice choice = resolve_device(request, source, probe_device_environment(process_environment()));
  activate_device(choice);
  return choice;
}

void move_optimizer_state(torch::optim::Optimizer& opt, const torch::Device& device) {
  for (auto& entry : opt.state()) {
    auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(entry.second.get());
    if (sgd == nullptr) throw Error("move_optimizer_state: only SGD state is supported");
    if (sgd->momentum_buffer().defined()) sgd->momentum_buffer(sgd->momentum_buffer().to(device));
  }
}

at::MemoryFormat resolve_memory_format(const std::string& request, const DeviceChoice& choice) {
  const bool channels_last = request == "auto" ? choice.kind == DeviceKind::kCuda : request == "channels_last";
  return channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
}

const char* memory_format_name(at::MemoryFormat format) {
  return format == at::MemoryFormat::ChannelsLast ? "channels_last" : "contiguous";
}

}  // namespace lane::train
