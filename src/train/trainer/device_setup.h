#pragma once
// The torch side of device selection: what this process sees (CUDA build? visible GPUs? local
// rank?), making the chosen device current, and moving what the optimizer holds. The decisions
// themselves are pure functions in train/device/device_select.h. Includes libtorch.
#include <cstdint>
#include <functional>
#include <optional>

#include <torch/torch.h>

#include "train/device/device_select.h"
#include "train/model/scnn.h"
#include "train/config/train_config.h"

namespace lane::train {

// True when this binary was built against a CUDA libtorch (CMake's LANE_WITH_CUDA).
bool build_has_cuda();

// Visible GPUs (torch::cuda::device_count(), which honours CUDA_VISIBLE_DEVICES), the local rank
// and local size under mpirun (OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE) and
// LANE_ALLOW_GPU_SHARING, read through env.
DeviceEnvironment probe_device_environment(const EnvLookup& env);

// Whether this CPU has native bf16 instructions (avx512_bf16 or amx_bf16 in /proc/cpuinfo).
bool cpu_has_native_bf16();

// Run first in scnn-train-core's main, before libtorch runs a oneDNN kernel: caps oneDNN's CPU
// kernels as onednn_isa_cap decides (setenv ONEDNN_MAX_CPU_ISA), from the oneDNN this process
// links (its dnnl_version; unknown, so no cap, where libtorch does not export it) and
// /proc/cpuinfo.
void cap_onednn_isa();
// The note for the run's first lines when cap_onednn_isa capped oneDNN (and what
// settle_onednn_bf16 found); "" otherwise.
const std::string& onednn_isa_note();
// Whether cap_onednn_isa capped oneDNN (and settle_onednn_bf16 has not lifted the cap).
bool onednn_isa_capped();

// For a training run that may use bf16 on the CPU (onednn_bf16_check_wanted), where
// cap_onednn_isa capped oneDNN: one bf16 forward and backward pass of `model` at `batch` in
// `memory_format` on random data (`threads` intra-op threads, 0: libtorch's default) in a forked
// child, on the AMX kernels. `agree` takes whether every gradient was finite here and returns whether they were on
// every rank (a collective: all ranks call it). Yes: lifts the cap for this process and returns
// kAmx; no (or the child could not run): keeps it, kCapped. kNotCapped when nothing was capped.
// Call it before this process runs any oneDNN kernel: oneDNN reads its cap once.
OnednnBf16 settle_onednn_bf16(const model::ScnnConfig& model, int batch, int threads, at::MemoryFormat memory_format,
                              const std::function<bool(bool)>& agree);

// The exit status of `body` run in a forked child (its return value; 128 + the signal that ended
// it; 125 if it threw), or -1 when fork failed. The parent waits for it.
int status_of_child(const std::function<int()>& body);

// Whether CUDA device `index` computes in bf16 (compute capability 8.0 or newer). false on a
// CPU-only build.
bool gpu_has_bf16(int index);

torch::Device torch_device(const DeviceChoice& choice);

// Free memory of the chosen GPU (cudaMemGetInfo), in bytes; nullopt on a CPU or a CPU-only build.
std::optional<uint64_t> gpu_free_memory(const DeviceChoice& choice);

// Makes the chosen GPU this thread's current device and turns cuDNN autotuning on (the input
// shape is fixed). Nothing for CPU.
void activate_device(const DeviceChoice& choice);

// Sets the float32 math of `precision` on `choice` (float32_math: TF32 off in cuDNN and cuBLAS
// for fp32, on for tf32; process-wide, libtorch's global context) and returns it. Nothing to set
// on a CPU.
MathMode apply_float32_math(const DeviceChoice& choice, Precision precision);

// The layout of --memory-format (auto, channels_last, contiguous; checked by the settings) on
// `choice`: auto is channels_last on a GPU (cuDNN's NHWC kernels, no layout conversions) and
// contiguous on a CPU.
at::MemoryFormat resolve_memory_format(const std::string& request, const DeviceChoice& choice);
const char* memory_format_name(at::MemoryFormat format);

// What train and predict do with --device/DEVICE: resolve `request` against this process's
// environment (lane::UsageError naming `source` when it cannot be met) and activate the choice.
DeviceChoice select_device(const std::string& request, const std::string& source);

// Moves the optimizer's per-parameter state (SGD momentum) to `device`, after the model's
// parameters were moved there (Module::to keeps the parameter objects, so the state's keys stay).
void move_optimizer_state(torch::optim::Optimizer& opt, const torch::Device& device);

}  // namespace lane::train
