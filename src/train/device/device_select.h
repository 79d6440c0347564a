#pragma once
// Device and precision selection for scnn-train, as pure functions: the request (--device,
// --precision or their environment variables) and a description of what this process sees
// (built with CUDA? how many visible GPUs? which local rank of how many?) in, a decision or a
// lane::UsageError naming the flag and the fix out. No libtorch and no CUDA here, so every
// branch is unit-tested on a machine without a GPU; device_setup.cpp fills DeviceEnvironment.
#include <optional>
#include <string>

namespace lane::train {

enum class DeviceKind { kCpu, kCuda };

struct DeviceEnvironment {
  bool build_has_cuda = false;   // the libtorch this binary links has CUDA
  int visible_gpus = 0;          // devices the CUDA runtime shows (after CUDA_VISIBLE_DEVICES)
  std::optional<std::string> cuda_visible_devices;  // the variable, for messages only
  int local_rank = 0;            // OMPI_COMM_WORLD_LOCAL_RANK (0 outside mpirun)
  int local_size = 1;            // OMPI_COMM_WORLD_LOCAL_SIZE (1 outside mpirun)
  bool allow_gpu_sharing = false;  // LANE_ALLOW_GPU_SHARING=1: several ranks on one GPU
};

struct DeviceChoice {
  DeviceKind kind = DeviceKind::kCpu;
  int index = -1;                // CUDA ordinal among the visible devices; -1 for CPU
  std::string describe() const;  // "cpu" or "cuda:N"
};

// request: "auto", "cpu", "cuda" or "cuda:N"; source names the flag or variable in errors.
// auto: CUDA when the build has it and a GPU is visible, else CPU. cuda: the GPU of this local
// rank (local_rank modulo the visible devices). Errors (lane::UsageError, exit 2): an unknown
// value, CUDA on a CPU-only build, no visible GPU, cuda:N out of range, more ranks on this node
// than visible GPUs (NCCL needs one GPU per rank) unless sharing is allowed.
DeviceChoice resolve_device(const std::string& request, const std::string& source, const DeviceEnvironment& env);

// kTf32: float32 tensors, convolutions and matrix products in TensorFloat-32 on the GPU (10-bit
// mantissa inputs, float32 accumulation; Ampere and newer, plain float32 elsewhere). No autocast.
enum class Precision { kFp32, kBf16, kFp16, kTf32 };
const char* precision_name(Precision p);

// request: "fp32", "bf16", "fp16", "tf32" (GPU) or empty (the default for the device). device_has_bf16: the GPU
// computes in bf16 (compute capability 8.0+), or the CPU has native bf16 instructions
// (cpu_flags_have_bf16). Defaults, from docs/BENCHMARKS.md (issue 12): bf16 where the device has
// it (on this repository's AVX512-BF16 CPU the full SCNN step takes 2.7x less CPU time in bf16),
// otherwise fp16 with loss scaling on GPUs and fp32 on CPUs. fp16 on CPU is refused (CPU autocast
// has bf16 only).
Precision resolve_precision(const std::string& request, const std::string& source, const DeviceChoice& device,
                            bool device_has_bf16);

// The float32 math of a run: whether cuDNN (convolutions) and cuBLAS (matrix products) may use
// TF32 for float32 tensors. libtorch's defaults (cuDNN yes, cuBLAS no) would make "fp32"
// convolutions TF32, so fp32 on CUDA is strict IEEE float32 (both off); tf32 turns both on;
// bf16/fp16 keep libtorch's defaults for the float32 ops autocast leaves. A CPU: both off.
struct MathMode {
  bool allow_tf32_cudnn = false;
  bool allow_tf32_cublas = false;
  std::string describe() const;  // for the run's first line: "strict fp32: TF32 off", ...
};
MathMode float32_math(const DeviceChoice& device, Precision precision);

// Whether the "flags" of a /proc/cpuinfo text include `flag`.
bool cpu_flags_have(const std::string& cpuinfo, const std::string& flag);
// Whether the "flags" of a /proc/cpuinfo text include avx512_bf16 or amx_bf16.
bool cpu_flags_have_bf16(const std::string& cpuinfo);

// The ISA oneDNN's CPU kernels are capped at (its ONEDNN_MAX_CPU_ISA), or nullopt for none.
// oneDNN before 3.0 (Debian's libtorch 1.13 links 2.6.3) computes non-finite weight gradients
// with some of its AMX bf16 convolution kernels (3x3 with at most 16 output channels at 256x448
// and larger: the small model's first layers), which turns bf16 training to NaN at its second
// step; its AVX512-BF16 kernels train (docs/dev/training.md, "bf16 on AMX"). So: AVX512_CORE_BF16
// when oneDNN is older than 3.0 (onednn_major 0: unknown, no cap), the CPU has amx_bf16, and the
// user set neither ONEDNN_MAX_CPU_ISA nor DNNL_MAX_CPU_ISA. Training in bf16 then checks the AMX
// kernels on its model's shapes and lifts the cap when they pass (OnednnBf16).
std::optional<std::string> onednn_isa_cap(int onednn_major, bool cpu_has_amx_bf16, bool user_set_isa);

// oneDNN's bf16 kernels in a CPU training run: not capped (no cap was needed, or the user chose
// the ISA), AMX (capped, then the model's shapes passed the check and the cap was lifted), or
// capped at AVX512_CORE_BF16 (they did not pass).
enum class OnednnBf16 { kNotCapped, kAmx, kCapped };

// Whether a training run checks oneDNN's AMX bf16 kernels: oneDNN is capped (onednn_isa_cap) and
// the run may train on the CPU in bf16 (`precision_request` empty, the default, or "bf16";
// `device_request` "auto" or "cpu": the capped oneDNN is a CPU-only libtorch's).
bool onednn_bf16_check_wanted(bool onednn_capped, const std::string& precision_request,
                              const std::string& device_request);

// The device_has_bf16 of resolve_precision for a CPU: native bf16 and not on the capped kernels.
// Capped, bf16 is no faster than fp32 (measured on a 2-vCPU AMX Xeon where the check fails, the
// small model at 256x448: median 0.79x fp32's images/s over 11 runs; docs/BENCHMARKS.md), and
// fp32 is the more exact, so the default is fp32 there; --precision bf16 still trains in bf16.
bool cpu_bf16_by_default(bool cpu_has_native_bf16, OnednnBf16 onednn);

// Whether the user chose oneDNN's ISA: ONEDNN_MAX_CPU_ISA or DNNL_MAX_CPU_ISA (the values of
// getenv, nullptr when unset) is set and not empty. oneDNN reads an empty value as unset, so an
// empty one leaves the choice to onednn_isa_cap.
bool onednn_isa_set_by_user(const char* onednn_max_cpu_isa, const char* dnnl_max_cpu_isa);

}  // namespace lane::train
