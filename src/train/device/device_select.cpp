#include "train/device/device_select.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"

namespace lane::train {

std::string DeviceChoice::describe() const {
  return kind == DeviceKind::kCpu ? std::string("cpu") : fmt::format("cuda:{}", index);
}

namespace {

std::string visible_note(const DeviceEnvironment& env) {
  if (!env.cuda_visible_devices) return "";
  return fmt::format(" (CUDA_VISIBLE_DEVICES='{}')", *env.cuda_visible_devices);
}

void require_cuda_build(const std::string& source, const std::string& request) {
  throw UsageError(fmt::format(
      "{}: '{}' needs a CUDA build of scnn-train, but this binary links a CPU-only libtorch; use --device cpu, "
      "or build with a CUDA libtorch (scripts/build-cuda, or the images/scnn-train/Dockerfile.cuda image)",
      source, request));
}

// The precisions that only a GPU computes in: why, and what to use on a CPU instead.
struct GpuOnlyPrecision {
  Precision precision;
  const char* why;
  const char* on_cpu;
};
constexpr GpuOnlyPrecision kGpuOnlyPrecisions[] = {
    {Precision::kFp16, "CPU autocast computes in bf16 only", "bf16 or fp32"},
    {Precision::kTf32, "TensorFloat-32 is a CUDA math mode", "fp32 or bf16"},
};

}  // namespace

DeviceChoice resolve_device(const std::string& request, const std::string& source, const DeviceEnvironment& env) {
  DeviceChoice cpu;
  if (request == "cpu") return cpu;
  if (request == "auto" || request.empty()) {
    if (!env.build_has_cuda || env.visible_gpus == 0) return cpu;
    return resolve_device("cuda", source, env);
  }
  int pinned = -1;
  if (request.rfind("cuda:", 0) == 0) {
    const std::string digits = request.substr(5);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0' || errno == ERANGE || v < 0 || digits[0] == '+' || digits[0] == '-')
      throw UsageError(fmt::format("{}: '{}' is not a device (use auto, cpu, cuda or cuda:N)", source, request));
    pinned = static_cast<int>(v);
  } else if (request != "cuda") {
    throw UsageError(fmt::format("{}: '{}' is not a device (use auto, cpu, cuda or cuda:N)", source, request));
  }
  if (!env.build_has_cuda) require_cuda_build(source, request);
  if (env.visible_gpus <= 0)
    throw UsageError(fmt::format("{}: '{}' but no GPU is visible to this process{}; use --device cpu, or run "
                                 "where a GPU is visible (a job submitted with --gpu N)",
                                 source, request, visible_note(env)));
  DeviceChoice gpu;
  gpu.kind = DeviceKind::kCuda;
  if (pinned >= 0) {
    if (pinned >= env.visible_gpus)
      throw UsageError(fmt::format("{}: '{}' but only {} GPU(s) are visible (cuda:0..cuda:{}){}", source, request,
                                   env.visible_gpus, env.visible_gpus - 1, visible_note(env)));
    if (env.local_size > 1 && !env.allow_gpu_sharing)
      throw UsageError(fmt::format("{}: '{}' pins all {} ranks on this node to one GPU; use --device cuda (each "
                                   "rank takes the GPU of its local rank) or set LANE_ALLOW_GPU_SHARING=1",
                                   source, request, env.local_size));
    gpu.index = pinned;
    return gpu;
  }
  if (env.local_size > env.visible_gpus && !env.allow_gpu_sharing)
    throw UsageError(fmt::format(
        "{}: {} ranks on this node but {} visible GPU(s){}: NCCL needs one GPU per rank; start at most {} rank(s) "
        "per node (submit with --gpu {} per worker), or set LANE_ALLOW_GPU_SHARING=1, or use --device cpu",
        source, env.local_size, env.visible_gpus, visible_note(env), env.visible_gpus, env.local_size));
  gpu.index = env.local_rank % env.visible_gpus;
  return gpu;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    case Precision::kTf32: return "tf32";
  }
  return "?";
}

Precision resolve_precision(const std::string& request, const std::string& source, const DeviceChoice& device,
                            bool device_has_bf16) {
  const bool gpu = device.kind == DeviceKind::kCuda;
  if (request.empty()) {
    if (device_has_bf16) return Precision::kBf16;
    return gpu ? Precision::kFp16 : Precision::kFp32;
  }
  if (request == "fp32") return Precision::kFp32;
  if (request == "bf16") {
    if (gpu && !device_has_bf16)
      throw UsageError(fmt::format("{}: bf16 but {} has no bf16 support (compute capability below 8.0); use fp16 "
                                   "(dynamic loss scaling) or fp32",
                                   source, device.describe()));
    return Precision::kBf16;
  }
  for (const GpuOnlyPrecision& p : kGpuOnlyPrecisions) {
    if (request != precision_name(p.precision)) continue;
    if (!gpu)
      throw UsageError(fmt::format("{}: {} needs a GPU ({}); use {} on CPU", source, request, p.why, p.on_cpu));
    return p.precision;
  }
  throw UsageError(fmt::format("{}: '{}' is not a precision (use fp32, tf32, bf16 or fp16)", source, request));
}

MathMode float32_math(const DeviceChoice& device, Precision precision) {
  if (device.kind != DeviceKind::kCuda) return {};
  switch (precision) {
    case Precision::kFp32: return {false, false};
    case Precision::kTf32: return {true, true};
    case Precision::kBf16:
    case Precision::kFp16: return {true, false};
  }
  return {};
}

std::string MathMode::describe() const {
  if (allow_tf32_cudnn && allow_tf32_cublas) return "TF32 convolutions and matrix products";
  if (allow_tf32_cudnn) return "float32 ops: TF32 convolutions, fp32 matrix products";
  return "strict fp32: TF32 off";
}

bool cpu_flags_have(const std::string& cpuinfo, const std::string& flag) {
  const std::string word = " " + flag + " ";
  size_t pos = 0;
  while ((pos = cpuinfo.find("flags", pos)) != std::string::npos) {
    const size_t end = cpuinfo.find('\n', pos);
    const std::string line = " " + cpuinfo.substr(pos, end == std::string::npos ? std::string::npos : end - pos) + " ";
    if (line.find(word) != std::string::npos) return true;
    if (end == std::string::npos) break;
    pos = end;
  }
  return false;
}

bool cpu_flags_have_bf16(const std::string& cpuinfo) {
  return cpu_flags_have(cpuinfo, "avx512_bf16") || cpu_flags_have(cpuinfo, "amx_bf16");
}

std::optional<std::string> onednn_isa_cap(int onednn_major, bool cpu_has_amx_bf16, bool user_set_isa) {
  if (onednn_major <= 0 || onednn_major >= 3 || !cpu_has_amx_bf16 || user_set_isa) return std::nullopt;
  return "AVX512_CORE_BF16";
}

bool onednn_bf16_check_wanted(bool onednn_capped, const std::string& precision_request,
                              const std::string& device_request) {
  return onednn_capped && (precision_request.empty() || precision_request == "bf16") &&
         (device_request.empty() || device_request == "auto" || device_request == "cpu");
}

bool cpu_bf16_by_default(bool cpu_has_native_bf16, OnednnBf16 onednn) {
  return cpu_has_native_bf16 && onednn != OnednnBf16::kCapped;
}

bool onednn_isa_set_by_user(const char* onednn_max_cpu_isa, const char* dnnl_max_cpu_isa) {
  const auto set = [](const char* value) { return value && *value; };
  return set(onednn_max_cpu_isa) || set(dnnl_max_cpu_isa);
}

}  // namespace lane::train
