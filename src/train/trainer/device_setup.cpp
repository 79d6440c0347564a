#include "train/trainer/device_setup.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

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
  isa_note() = fmt::format(
      "oneDNN {}.{}.{} on a CPU with AMX: its CPU kernels are capped at {} (its AMX bf16 kernels turn training to "
      "NaN); ONEDNN_MAX_CPU_ISA set by hand overrides",
      v->major, v->minor, v->patch, *cap);
}

const std::string& onednn_isa_note() { return isa_note(); }

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
